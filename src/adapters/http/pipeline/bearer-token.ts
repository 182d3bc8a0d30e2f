/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header.length < 8) return undefined;
  if (header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const token = header.slice(7).trim();
  return token === '' ? undefined : token;
}
