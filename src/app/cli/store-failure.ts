/** Why a store could not be reached, as far as its client's error says: for the start-up line. */
export function unavailabilityReason(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return undefined;
  const code = (cause as { code?: unknown }).code;
  const text = cause.message;
  if (code === '3D000') return 'database does not exist';
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(text)) return 'connection refused';
  if (code === 'ETIMEDOUT' || /ETIMEDOUT|timed? ?out/i.test(text)) return 'connection timed out';
  if (/NOAUTH|WRONGPASS|invalid password|AUTH/i.test(text)) return 'authentication failed';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || /ENOTFOUND|EAI_AGAIN/.test(text)) return 'host not found';
  if (code === 'ECONNRESET' || /ECONNRESET/.test(text)) return 'connection reset';
  return undefined;
}
