import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, pack, peerRange, REPO, run } from './packed-project.js';

/*
 * petstore-service/testing as someone who writes a store uses it: the packed package and
 * fast-check (its optional peer) installed in a project outside the repository, the kit's
 * QuotaStore contract and its property run there under node:test and under vitest, against the
 * memory store (passes) and a store that admits one past every limit (fails, printing the shrunk
 * schedule). The project's tests are the guide's loops (docs/testing-kit.md), nothing more.
 */

const STORES = `import { MemoryQuotaStore } from 'petstore-service';

/** Admits one request past every limit: the mistake the kit must catch. */
const onePastTheLimit = (clock) => {
  const inner = new MemoryQuotaStore(clock);
  const widened = (policy) => ({ ...policy, rules: policy.rules.map((rule) => ({ ...rule, limit: rule.limit + 1 })) });
  return {
    decide: (subject, policy, cost) => inner.decide(subject, widened(policy), cost),
    peek: (subject, policy, cost) => inner.peek(subject, widened(policy), cost),
    reset: (subject) => inner.reset(subject),
    refund: (subject, policy, units, admitted) => inner.refund(subject, widened(policy), units, admitted),
  };
};

const stores = { memory: (clock) => new MemoryQuotaStore(clock), 'one-past-the-limit': onePastTheLimit };

/** The factory the kit asks for: a store reading the clock it is given, and how to let it go. */
export const createStore = async (clock) => ({ store: stores[process.env.KIT_STORE](clock), cleanup: async () => {} });
`;

const NODE_TEST = `import { test } from 'node:test';
import { quotaStoreAgreesWithModel, quotaStoreChecks } from 'petstore-service/testing';
import { createStore } from './stores.mjs';

for (const check of quotaStoreChecks(createStore)) test(check.name, check.run);
test('agrees with the reference model on every schedule', () => quotaStoreAgreesWithModel(createStore, { numRuns: 100 }));
`;

// Run with --globals: the project installs no vitest, the repository's binary runs it.
const VITEST = NODE_TEST.replace("import { test } from 'node:test';\n", '').replaceAll('test(', 'it(');

let work: string;
let project: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-kit-consumer-'));
  const { tarball } = await pack(work);
  project = await consumerProject(work, 'store-author', [tarball, `fast-check@${await peerRange('fast-check')}`]);
  await writeFile(join(project, 'stores.mjs'), STORES);
  await writeFile(join(project, 'quota-store.node.test.mjs'), NODE_TEST);
  await writeFile(join(project, 'quota-store.vitest.test.mjs'), VITEST);
}, 180_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** The output of a run that must fail: its error's message carries stdout and stderr. */
const failureOf = async (running: Promise<string>): Promise<string> =>
  running.then(
    (output) => {
      throw new Error(`expected the run to fail, it passed:\n${output}`);
    },
    (error: unknown) => (error as Error).message,
  );

const runners = {
  'node:test': (store: string) => run(process.execPath, ['--test', 'quota-store.node.test.mjs'], { cwd: project, timeoutMs: 60_000, env: { ...process.env, KIT_STORE: store, NO_COLOR: '1', FORCE_COLOR: '0' } }),
  vitest: (store: string) =>
    run(process.execPath, [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--root', project, '--globals', '--reporter', 'verbose', 'quota-store.vitest.test.mjs'], {
      cwd: project,
      timeoutMs: 60_000,
      env: { ...process.env, KIT_STORE: store, PETSTORE_TEST_TIER: '', NO_COLOR: '1', FORCE_COLOR: '0' },
    }),
};

describe('petstore-service/testing in a project of its own', () => {
  for (const [runner, runWith] of Object.entries(runners)) {
    it(`under ${runner}: the memory store passes the QuotaStore contract and the property`, async () => {
      const output = await runWith('memory');
      expect(output).toContain('agrees with the reference model on every schedule');
      expect(output).toContain('150 concurrent requests against a limit of 100 admit exactly 100');
    });

    it(`under ${runner}: a store admitting one past the limit fails, with the shrunk schedule request by request`, async () => {
      const output = await failureOf(runWith('one-past-the-limit'));
      expect(output).toContain('the limiter admitted a request the model refuses (over-admission):');
      expect(output).toMatch(/plan 0: \w+: \d+ per \d+ ms/);
      expect(output).toMatch(/t=\d+( plan \d+)? request cost=[\d,[\]]+ → admitted \(model: refused\)/);
      expect(output).toMatch(/fast-check seed -?\d+, path "[\d:]*", shrunk \d+ times/);
    });
  }
});
