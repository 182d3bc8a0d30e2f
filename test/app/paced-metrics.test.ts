import { describe, expect, it } from 'vitest';
import type { AdminSource } from '../../src/app/admin/admin-source.js';
import { pacedMetrics, type MetricsPace } from '../../src/app/admin/paced-metrics.js';
import { startPetStore } from '../../src/app/start-pet-store.js';
import { parsePrometheus } from '../support/prometheus-text.js';

/** A source counting its renderings, each text naming its number; the first `failures` fail. */
function countingSource(failures = 0): AdminSource & { renderings: number } {
  const source = {
    renderings: 0,
    contentType: 'text/plain',
    readiness: async () => ({ ready: true, body: { status: 'ready' } }),
    metrics: async () => {
      source.renderings += 1;
      if (source.renderings <= failures) throw new Error('the source failed');
      return `renderings ${source.renderings}\n`;
    },
  };
  return source;
}

/** A clock moved by hand, whose sleeps end when the test says. */
function manualPace(): MetricsPace & { at: number; sleeps: number[]; wake(): void } {
  const wakers: (() => void)[] = [];
  const pace = {
    at: 10_000,
    sleeps: [] as number[],
    now: () => pace.at,
    sleep: (ms: number) => {
      pace.sleeps.push(ms);
      return new Promise<void>((resolve) => wakers.push(resolve));
    },
    wake: () => {
      pace.at += pace.sleeps.at(-1) ?? 0;
      for (const resolve of wakers.splice(0)) resolve();
    },
  };
  return pace;
}

describe('metrics rendered at most once a second', () => {
  it('renders once for scrapes within a second of the last rendering: the next one, begun after they arrived', async () => {
    const source = countingSource();
    const pace = manualPace();
    const paced = pacedMetrics(source, 1_000, pace);
    expect(await paced.metrics()).toBe('renderings 1\n');
    pace.at += 300;
    const second = paced.metrics();
    pace.at += 400;
    const third = paced.metrics();
    expect(source.renderings).toBe(1);
    expect(pace.sleeps).toEqual([700]);
    pace.wake();
    expect(await Promise.all([second, third])).toEqual(['renderings 2\n', 'renderings 2\n']);
    expect(source.renderings).toBe(2);
    // A second after that rendering began, a scrape is answered at once.
    pace.at += 1_000;
    expect(await paced.metrics()).toBe('renderings 3\n');
    expect(pace.sleeps).toEqual([700]);
  });

  it('fails the scrapes waiting for a rendering that fails, and the next scrape renders anew', async () => {
    const source = countingSource(1);
    const pace = manualPace();
    const paced = pacedMetrics(source, 1_000, pace);
    await expect(paced.metrics()).rejects.toThrow('the source failed');
    pace.at += 1_000;
    expect(await paced.metrics()).toBe('renderings 2\n');
  });

  it('asks the source on every readiness probe', async () => {
    let probes = 0;
    const paced = pacedMetrics({ ...countingSource(), readiness: async () => ({ ready: true, body: { probes: (probes += 1) } }) });
    expect([await paced.readiness(), await paced.readiness()]).toEqual([
      { ready: true, body: { probes: 1 } },
      { ready: true, body: { probes: 2 } },
    ]);
  });

  it("paces the server's admin listener: a scrape right after another waits for the next second's rendering, which counts the requests before it", async () => {
    const store = await startPetStore({ PORT: '0', HOST: '127.0.0.1', PETSTORE_ADMIN_PORT: '0', PETSTORE_ENV: 'test', PETSTORE_STORE: 'memory', PETSTORE_LOG_LEVEL: 'silent', PETSTORE_API_KEYS: 'paced-key:pro' });
    try {
      const scrape = async () => parsePrometheus(await (await fetch(`${store.adminUrl}/metrics`)).text());
      const listed = 'petstore_http_requests_total{method="GET",route="/pets",status="200"}';
      const began = performance.now();
      expect((await scrape()).get(listed)).toBeUndefined();
      await (await fetch(`${store.baseUrl}/pets`, { headers: { authorization: 'Bearer paced-key' } })).arrayBuffer();
      expect((await scrape()).get(listed)).toBe(1);
      expect(performance.now() - began).toBeGreaterThanOrEqual(990);
    } finally {
      await store.close(1_000, 0);
    }
  });
});
