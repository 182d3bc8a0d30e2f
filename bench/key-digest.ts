/**
 * Micro-benchmark of the API key digest on the request path: SHA-256 of every presented key
 * (the reference) beside the digests remembered per key (cachedDigestApiKey), for one hot key
 * and for the HTTP bench's 10,000 keys in turn. Run with `node dist/bench/key-digest.js`.
 */
import { cachedDigestApiKey, digestApiKey, REMEMBERED_API_KEYS } from '../src/adapters/api-key-digest.js';
import { SPREAD_KEY_COUNT, spreadKey, UNLIMITED } from './http/keys.js';

const SECONDS = 1;
const spread = Array.from({ length: SPREAD_KEY_COUNT }, (_, i) => spreadKey(i).key);

/** Digests per second of `digest` over `keys` in turn, after a warm-up. */
const rate = (digest: (key: string) => string, keys: readonly string[]): number => {
  let i = 0;
  let sink = 0;
  const batch = (): void => {
    for (const end = i + 10_000; i < end; i++) sink += digest(keys[i % keys.length]!).length;
  };
  const warmUpUntil = performance.now() + 200;
  while (performance.now() < warmUpUntil) batch();
  const first = i;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1_000) batch();
  if (sink === 0) throw new Error('no digest computed');
  return (i - first) / ((performance.now() - started) / 1_000);
};

const format = (perSecond: number): string => Math.round(perSecond).toLocaleString('en-US');
console.log(`API key digests, ${SECONDS} s each, node ${process.version}.\n`);
console.log('| keys | SHA-256 each time /s | remembered /s | remembered / SHA-256 |');
console.log('|---|---:|---:|---:|');
for (const [title, keys] of [
  ['one key', [UNLIMITED.key]],
  [`${SPREAD_KEY_COUNT.toLocaleString('en-US')} keys in turn`, spread],
] as const) {
  const reference = rate(digestApiKey, keys);
  const remembered = rate(cachedDigestApiKey(REMEMBERED_API_KEYS), keys);
  console.log(`| ${title} | ${format(reference)} | ${format(remembered)} | ${(remembered / reference).toFixed(1)} |`);
}
