/**
 * What scraping costs the API: the standalone server (the CLI, memory store, admin listener)
 * loaded with GET /v1/pets?limit=20 by autocannon, alone and while 8 clients scrape /metrics in
 * a loop (each sends the next scrape as soon as the last is answered), rounds interleaved. Per
 * variant: the API's median and p99 latency and req/s, the scrapes answered per second, and the
 * ratios of the scraped runs to the quiet ones.
 *
 * `npm run build && node dist/bench/metrics-scrape.js`. Environment: BENCH_ROUNDS (3),
 * BENCH_SECONDS (5), BENCH_CONNECTIONS (10). Every scraper stops with its round's load, and
 * after SCRAPES_PER_CLIENT scrapes at most.
 */
import { Agent, request } from 'node:http';
import { stopChild } from './http/child-process.js';
import { startCliServer, type CliServer } from './http/cli-server.js';
import { positiveFromEnv } from './http/env.js';
import { runLoad, type Measurement } from './http/load.js';
import { median } from './http/report.js';
import { scenarios } from './http/scenarios.js';

const SCRAPERS = 8;
/** A bound on each scraper besides its round's time. */
const SCRAPES_PER_CLIENT = 200_000;
const rounds = positiveFromEnv('BENCH_ROUNDS', 3);
const seconds = positiveFromEnv('BENCH_SECONDS', 5);
const connections = positiveFromEnv('BENCH_CONNECTIONS', 10);

type Running = CliServer & { readonly adminUrl: string };

const start = async (): Promise<Running> => {
  const server = await startCliServer('metrics bench server', { PETSTORE_ADMIN_HOST: '127.0.0.1', PETSTORE_ADMIN_PORT: '0', PETSTORE_STORE: 'memory' });
  if (server.adminUrl === undefined) throw new Error('metrics bench server: no admin listener');
  return { ...server, adminUrl: server.adminUrl };
};

/** One scraper: GET /metrics on a kept-alive connection, the next as soon as the last is read, until `until` or its bound. */
const scrapeLoop = async (adminUrl: string, until: number): Promise<number> => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let scrapes = 0;
  try {
    while (Date.now() < until && scrapes < SCRAPES_PER_CLIENT) {
      await new Promise<void>((resolve, reject) => {
        request(`${adminUrl}/metrics`, { agent }, (res) => {
          res.resume();
          res.on('end', resolve);
          if (res.statusCode !== 200) reject(new Error(`GET /metrics answered ${res.statusCode}`));
        })
          .on('error', reject)
          .end();
      });
      scrapes += 1;
    }
  } finally {
    agent.destroy();
  }
  return scrapes;
};

interface Result {
  readonly load: Measurement;
  readonly scrapesPerSecond: number;
}

const measure = async (server: Running, load: Awaited<ReturnType<typeof list.prepare>>, scraped: boolean): Promise<Result> => {
  const until = Date.now() + seconds * 1_000;
  const scrapers = scraped ? Array.from({ length: SCRAPERS }, () => scrapeLoop(server.adminUrl, until)) : [];
  const [measured, ...counts] = await Promise.all([runLoad(server.baseUrl, load, connections, seconds), ...scrapers]);
  return { load: measured, scrapesPerSecond: counts.reduce((sum, n) => sum + n, 0) / seconds };
};

const list = scenarios(connections).find((scenario) => scenario.id === 'list')!;
const server = await start();
const quiet: Result[] = [];
const scraped: Result[] = [];
try {
  const load = await list.prepare(server.baseUrl, 'memory');
  console.log(`${list.title}; ${connections} connections, ${rounds} interleaved rounds of ${seconds} s, alone and with ${SCRAPERS} clients scraping /metrics in a loop; node ${process.version}`);
  await runLoad(server.baseUrl, load, connections, 1);
  for (let round = 1; round <= rounds; round++) {
    for (const [results, withScrapes] of [[quiet, false], [scraped, true]] as const) {
      const result = await measure(server, load, withScrapes);
      results.push(result);
      const { p50Ms, p99Ms, requestsPerSecond, errors, non2xxShare } = result.load;
      console.log(
        `  round ${round} ${withScrapes ? 'scraped' : 'alone  '}: p50 ${p50Ms.toFixed(2)} ms, p99 ${p99Ms.toFixed(2)} ms, ${Math.round(requestsPerSecond)} req/s, ${Math.round(result.scrapesPerSecond)} scrapes/s` +
          (errors > 0 || non2xxShare > 0 ? ` (${errors} errors, ${(non2xxShare * 100).toFixed(1)}% non-2xx)` : ''),
      );
    }
  }
} finally {
  await stopChild(server.child, 15_000);
}

const of = (results: readonly Result[], pick: (result: Result) => number): number => median(results.map(pick));
const rows = [
  ['median latency (ms)', (r: Result) => r.load.p50Ms, 2],
  ['p99 latency (ms)', (r: Result) => r.load.p99Ms, 2],
  ['req/s', (r: Result) => r.load.requestsPerSecond, 0],
  ['scrapes/s answered', (r: Result) => r.scrapesPerSecond, 0],
] as const;
console.log('\n| medians of the rounds | alone | 8 clients scraping | scraped / alone |');
console.log('|---|---:|---:|---:|');
for (const [label, pick, digits] of rows) {
  const alone = of(quiet, pick);
  const withScrapes = of(scraped, pick);
  const ratio = alone === 0 ? '' : (withScrapes / alone).toFixed(2);
  console.log(`| ${label} | ${alone.toFixed(digits)} | ${withScrapes.toFixed(digits)} | ${ratio} |`);
}
