import { createHash } from 'node:crypto';

/** Keys are held and looked up as SHA-256 digests so a leaked store or log reveals no key. */
export const digestApiKey = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex');
