import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header.length < 8) return undefined;
  if (header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const token = header.slice(7).trim();
  return token === '' ? undefined : token;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Whether a request's Authorization carries `token` as its bearer token, read as the API reads
 * a key. Digests of equal length are compared in constant time, so timing tells nothing of the
 * token (the admin API's, which no store looks up).
 */
export function bearerMatcher(token: string): (authorization: string | undefined) => boolean {
  const expected = sha256(token);
  return (authorization) => {
    const given = bearerToken(authorization);
    return timingSafeEqual(sha256(given ?? ''), expected) && given !== undefined;
  };
}
