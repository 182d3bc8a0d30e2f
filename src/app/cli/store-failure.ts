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
  // PostgreSQL said why (a read-only database, a permission refused): in its own words, one line.
  if (typeof code === 'string' && SQLSTATE.test(code) && 'severity' in cause) return text.split('\n')[0];
  return undefined;
}

/** A SQLSTATE: five digits or capital letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** A failure in the one line the commands print: its message, and why when the store's client says. */
export function failureLine(error: unknown): string {
  const reason = unavailabilityReason(error);
  const message = error instanceof Error ? error.message : String(error);
  return reason === undefined ? message : `${message} (${reason})`;
}
