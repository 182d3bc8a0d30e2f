import {
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENCY_RECORD_MS,
  type IdempotencyClaim,
  type IdempotentResult,
} from '../../ports/idempotency-store.js';
import type { Deadline, PostgresDatabase, SqlSession } from './postgres-database.js';

/** Each claim's request's deadline, from the claim's begin. */
const deadlines = new WeakMap<IdempotencyClaim, Deadline>();

/**
 * A keyed request's calls (its begin, its creating transaction, a release after a refusal) share
 * one deadline, as the request's answer does: its begin starts it.
 */
export function startClaimDeadline(db: PostgresDatabase, claim: IdempotencyClaim): Deadline {
  const deadline = db.deadline();
  deadlines.set(claim, deadline);
  return deadline;
}

/**
 * The claim's request's deadline, or a new one if it has none or it has passed: a release after
 * a 503 is nobody's wait, and dropping the mark lets the retry run at once.
 */
export function claimDeadline(db: PostgresDatabase, claim: IdempotencyClaim, { renewPassed = false } = {}): Deadline {
  const deadline = deadlines.get(claim);
  return deadline === undefined || (renewPassed && deadline.at <= performance.now()) ? db.deadline() : deadline;
}

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
