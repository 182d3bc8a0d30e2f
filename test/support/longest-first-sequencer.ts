import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first: seconds of a whole `npm test` on this 2-core machine
 * (2026-11-27, three other suites beside it, so about twice a quiet run's). A scheduling hint only.
 * A clean clone has no timings of its own, and vitest's default order runs the projects' files
 * one project after another, so the consumer's 210 s started 275 s into the last group and ran
 * alone at its end. Started first, the long files overlap the many short ones. keys-command, cli
 * and postgres/multi-instance as measured on 2026-11-28 under the same load (162, 98 and 76 s).
 */
const SECONDS: Readonly<Record<string, number>> = {
  'test/package/consumer.test.ts': 210,
  'test/adapters/pglite-stores.test.ts': 178,
  'test/redis/keys-command.test.ts': 162,
  'test/adapters/redis-quota-plan-changes.test.ts': 146,
  'test/redis/ban-cache-model.test.ts': 107,
  'test/pglite/restart.test.ts': 101,
  'test/app/cli.test.ts': 98,
  'test/domain/quota-engine.properties.test.ts': 90,
  'test/domain/quota-engine.model.test.ts': 82,
  'test/redis/workers.test.ts': 78,
  'test/postgres/multi-instance.test.ts': 76,
  'test/domain/quota-plan-changes.properties.test.ts': 53,
  'test/adapters/memory-pet-repository.test.ts': 48,
  'test/app/shutdown.test.ts': 44,
  'test/domain/order-lifecycle.properties.test.ts': 34,
  'test/redis/readiness.test.ts': 34,
  'test/adapters/redis-quota-store.test.ts': 33,
  'test/domain/quota-ban.properties.test.ts': 32,
  'test/domain/quota-refunds.model.test.ts': 30,
  'test/redis/idempotent-retry-after-freeze.test.ts': 30,
  'test/http/input-schemas.properties.test.ts': 29,
  'test/domain/rate-limiter-overrides.test.ts': 29,
  'test/domain/rate-limit-fields.test.ts': 29,
  'test/postgres/durability.test.ts': 26,
  'test/domain/quota-burst.model.test.ts': 25,
  'test/package/testing-kit-consumer.test.ts': 21,
};

/** Within each group order, the slowest files first: a schedule's length is bounded by when its longest file starts. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const position = new Map(base.map((file, index) => [file, index]));
    const seconds = (file: TestSpecification): number => SECONDS[relative(file.project.config.root, file.moduleId)] ?? 0;
    const group = (file: TestSpecification): number => file.project.config.sequence.groupOrder;
    return base.sort((a, b) => group(a) - group(b) || seconds(b) - seconds(a) || (position.get(a) ?? 0) - (position.get(b) ?? 0));
  }
}
