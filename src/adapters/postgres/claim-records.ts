import {
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENCY_RECORD_MS,
  type IdempotencyClaim,
  type IdempotentResult,
} from '../../ports/idempotency-store.js';
import type { SqlSession } from './postgres-database.js';

/**
 * Locks the claim's record for the rest of the transaction (an in-flight mark is written when
 * there is none: its mark expired) and answers what a request of this claim already stored, if
 * one did: the creating step then returns that and stores nothing more.
 */
export async function lockClaim(session: SqlSession, claim: IdempotencyClaim, now: number): Promise<IdempotentResult | undefined> {
  // The no-op update takes the row lock and returns the row as it was.
  const { rows } = await session.query<{ fingerprint: string; result: IdempotentResult | null; live: boolean }>(
    `INSERT INTO idempotency_records (scope, key, fingerprint, expires_at)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (scope, key) DO UPDATE SET scope = idempotency_records.scope
           RETURNING fingerprint, result, expires_at > $5 AS live`,
    [claim.scope, claim.key, claim.fingerprint, now + IDEMPOTENCY_IN_FLIGHT_MS, now],
  );
  const record = rows[0];
  return record !== undefined && record.live && record.fingerprint === claim.fingerprint && record.result !== null ? record.result : undefined;
}

/** What the claim's request stored, kept 24 h, in the transaction that stored it. */
export async function completeClaim(session: SqlSession, claim: IdempotencyClaim, result: IdempotentResult, now: number): Promise<void> {
  await session.query('UPDATE idempotency_records SET fingerprint = $3, result = $4, expires_at = $5 WHERE scope = $1 AND key = $2', [
    claim.scope,
    claim.key,
    claim.fingerprint,
    result,
    now + IDEMPOTENCY_RECORD_MS,
  ]);
}
