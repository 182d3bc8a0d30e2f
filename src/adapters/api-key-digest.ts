import { hash } from 'node:crypto';

/**
 * Keys are held and looked up as SHA-256 digests so a leaked store or log reveals no key.
 * One-shot `hash`: this runs on every request, and it builds no Hash object.
 */
export const digestApiKey = (apiKey: string): string => hash('sha256', apiKey, 'hex');
