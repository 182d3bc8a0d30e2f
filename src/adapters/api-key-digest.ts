import { hash } from 'node:crypto';

/**
 * Keys are held and looked up as SHA-256 digests so a leaked store or log reveals no key.
 * One-shot `hash`: this runs on every request, and it builds no Hash object.
 */
export const digestApiKey = (apiKey: string): string => hash('sha256', apiKey, 'hex');

/** How many keys a request handler remembers the digests of: 10,000 callers in turn stay remembered, in about 2 MB. */
export const REMEMBERED_API_KEYS = 16_384;

/**
 * `digestApiKey` remembering the keys presented lately: a request of a caller seen before skips
 * SHA-256 (a microsecond, about 1% of a request's CPU). Bounded: past `capacity` the key
 * remembered longest ago is dropped, so a stream of random tokens cannot grow it. The keys
 * stay in this process's memory only, as they do while their requests are read.
 */
export const cachedDigestApiKey = (capacity: number, digestOf = digestApiKey): ((apiKey: string) => string) => {
  const digests = new Map<string, string>();
  return (apiKey) => {
    let digest = digests.get(apiKey);
    if (digest === undefined) {
      digest = digestOf(apiKey);
      if (digests.size >= capacity) digests.delete(digests.keys().next().value as string);
      digests.set(apiKey, digest);
    }
    return digest;
  };
};
