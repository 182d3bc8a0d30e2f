/**
 * What the 429 path spends in process, for builds compared in one run: a banned key's `GET
 * /v1/pets?limit=20` through each build's `createRequestHandler` (`createPetStore`, memory store,
 * the HTTP bench's Free key spent until banned), answered into a stub response whose `writeHead`
 * does what node:http does with a head (each name and value checked by node's regular
 * expressions, all joined into one string) and whose `end` copies head and body into a buffer, as
 * a socket write does. Figures are CPU time (`process.cpuUsage`), not wall time: on a shared
 * machine the process is descheduled at will. Builds are measured interleaved, round by round;
 * each figure is the median µs per request over the rounds, with the median of its ratios to the
 * first build's in the same round (above 1, that build spends more). The requests come far faster
 * than a server gets them (hundreds within a millisecond, against some ten), so what is kept per
 * millisecond weighs more here than over HTTP.
 *
 * `npm run build && node dist/bench/refusal-path.js`. Environment: BENCH_BUILDS (built checkouts,
 * comma-separated, each `npm run build`; default this one, `.`), BENCH_ROUNDS (12),
 * BENCH_REQUESTS (200,000 per build and round).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as CreatePetStoreModule from '../src/app/create-pet-store.js';
import type * as RequestHandlerModule from '../src/adapters/http/request-handler.js';
import { positiveFromEnv } from './http/env.js';
import { LIMITED } from './http/keys.js';
import { median } from './http/report.js';

const builds = (process.env['BENCH_BUILDS'] ?? '.').split(',').filter((dir) => dir !== '').map((dir) => resolve(dir));
const rounds = positiveFromEnv('BENCH_ROUNDS', 12);
const requests = positiveFromEnv('BENCH_REQUESTS', 200_000);

// node:http's checks of a header's name and value (lib/_http_common.js), run on every field written.
const TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** What a socket write does with a string: encode it into memory it owns. */
const scratch = Buffer.allocUnsafe(64 * 1024);

interface Build {
  readonly dir: string;
  /** Answers one request; the status it was answered. */
  readonly call: () => number;
  readonly close: () => Promise<void>;
}

const authorization = `Bearer ${LIMITED.key}`;
const headers = { host: '127.0.0.1', authorization };
const rawHeaders = ['Host', '127.0.0.1', 'Authorization', authorization];
const socket = { remoteAddress: '127.0.0.1' };

const load = async (dir: string): Promise<Build> => {
  const from = async <Module>(path: string): Promise<Module> => (await import(pathToFileURL(resolve(dir, 'dist', 'src', path)).href)) as Module;
  const { createPetStore } = await from<typeof CreatePetStoreModule>('app/create-pet-store.js');
  const { createRequestHandler } = await from<typeof RequestHandlerModule>('adapters/http/request-handler.js');
  const store = await createPetStore({ apiKeys: [`${LIMITED.key}:${LIMITED.plan}`] });
  const handler = createRequestHandler(store.dependencies);
  let status = 0;
  let head = '';
  const call = (): number => {
    const req = { method: 'GET', url: '/v1/pets?limit=20', headers, rawHeaders, httpVersionMajor: 1, httpVersionMinor: 1, socket } as unknown as IncomingMessage;
    const res = {
      statusCode: 200,
      writeHead: (answered: number, fields: readonly (string | number)[]) => {
        status = answered;
        head = `HTTP/1.1 ${answered}\r\n`;
        for (let i = 0; i < fields.length; i += 2) {
          const name = String(fields[i]);
          const value = fields[i + 1]!;
          if (!TOKEN.test(name) || INVALID_VALUE.test(String(value))) throw new Error(`${dir}: an invalid header field ${name}`);
          head += `${name}: ${value}\r\n`;
        }
      },
      end: (body: string) => scratch.write(`${head}\r\n${body}`, 0, 'utf8'),
      on: () => res,
      once: () => res,
    };
    handler(req, res as unknown as ServerResponse);
    return status;
  };
  // Twice the limit: the key is refused, then banned (the HTTP bench's `limited` scenario).
  for (let i = 0; i < 2 * LIMITED.perMinute; i++) call();
  if (call() !== 429) throw new Error(`${dir}: the spent key is not answered 429`);
  return { dir, call, close: () => store.close() };
};

const loaded: Build[] = [];
for (const dir of builds) loaded.push(await load(dir));

console.log(`a banned key's 429 in process, ${rounds} rounds of ${requests.toLocaleString('en')} requests per build, interleaved; CPU time; node ${process.version}`);
const perRequest = loaded.map(() => [] as number[]);
const ratios = loaded.map(() => [] as number[]);
// A warm-up per build, so every one runs optimised code from the first round.
for (const build of loaded) for (let i = 0; i < requests / 5; i++) build.call();
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? loaded : [...loaded].reverse();
  const figures = new Map<Build, number>();
  for (const build of order) {
    const started = process.cpuUsage();
    let refused = 0;
    for (let i = 0; i < requests; i++) if (build.call() === 429) refused++;
    const used = process.cpuUsage(started);
    if (refused !== requests) throw new Error(`${build.dir}: ${requests - refused} answers were not 429`);
    figures.set(build, (used.user + used.system) / requests);
  }
  loaded.forEach((build, i) => {
    perRequest[i]!.push(figures.get(build)!);
    ratios[i]!.push(figures.get(build)! / figures.get(loaded[0]!)!);
  });
}
console.log('build'.padEnd(60) + 'µs/req median'.padStart(15) + 'min'.padStart(8) + '× first'.padStart(10));
loaded.forEach((build, i) => {
  const line = build.dir.padEnd(60) + median(perRequest[i]!).toFixed(2).padStart(15) + Math.min(...perRequest[i]!).toFixed(2).padStart(8);
  console.log(line + median(ratios[i]!).toFixed(3).padStart(10));
});
await Promise.all(loaded.map((build) => build.close()));
