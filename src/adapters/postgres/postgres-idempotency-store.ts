import {
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENCY_MARK_RESOLUTION_MS,
  type IdempotencyClaim,
  type IdempotencyStart,
  type IdempotencyStore,
  type IdempotentResult,
} from '../../ports/idempotency-store.js';
import type { Clock } from '../../ports/clock.js';
import { claimDeadline, startClaimDeadline } from './claim-records.js';
import type { PostgresDatabase } from './postgres-database.js';

const STARTED: IdempotencyStart = { kind: 'started' };
const REUSED: IdempotencyStart = { kind: 'reused' };

/** Expired records are deleted by every this many begins, a bounded batch at a time, so the table follows the keys of the last 24 h. */
const PURGE_EVERY = 1_000;
const PURGE_BATCH = 1_000;

/**
 * Idempotency-Key records in PostgreSQL, one row per (API key, Idempotency-Key), completed by the
 * pet and order repositories in the transaction that stores. Expiry is by the Clock, as the
 * memory store's, so tests drive it.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  #begins = 0;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async begin(claim: IdempotencyClaim): Promise<IdempotencyStart> {
    if (++this.#begins % PURGE_EVERY === 0) void this.#purge();
    const deadline = startClaimDeadline(this.db, claim);
    // A record that vanishes between the two statements (released, expired, in its last second) is begun again.
    for (;;) {
      const now = this.clock.now();
      // A mark's last second holds nothing off (see IDEMPOTENCY_MARK_RESOLUTION_MS).
      const started = await this.db.query(
        `INSERT INTO idempotency_records (scope, key, fingerprint, expires_at)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (scope, key) DO UPDATE
                   SET fingerprint = EXCLUDED.fingerprint, expires_at = EXCLUDED.expires_at, result = NULL
                   WHERE idempotency_records.expires_at <= $5
                      OR (idempotency_records.result IS NULL AND idempotency_records.expires_at < $6)
         RETURNING 1`,
        [claim.scope, claim.key, claim.fingerprint, now + IDEMPOTENCY_IN_FLIGHT_MS, now, now + IDEMPOTENCY_MARK_RESOLUTION_MS],
        { deadline },
      );
      if (started.rowCount === 1) return STARTED;
      // int4: the time left of a record kept at most 24 h, which the driver reads as a number.
      const { rows } = await this.db.read<{ fingerprint: string; result: IdempotentResult | null; left_ms: number }>(
        'SELECT fingerprint, result, (expires_at - $3)::int4 AS left_ms FROM idempotency_records WHERE scope = $1 AND key = $2 AND expires_at > $3',
        [claim.scope, claim.key, now],
        { deadline },
      );
      const record = rows[0];
      // What is left now, not at `now`: the two statements may have taken a while (a store just thawed), and a Retry-After must not outlast the mark.
      const leftMs = record === undefined ? 0 : record.left_ms - (this.clock.now() - now);
      if (record === undefined || (record.result === null && leftMs < IDEMPOTENCY_MARK_RESOLUTION_MS)) continue;
      if (record.fingerprint !== claim.fingerprint) return REUSED;
      return record.result === null ? { kind: 'in_flight', leftMs } : { kind: 'replay', result: record.result };
    }
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    await this.db.query(
      'DELETE FROM idempotency_records WHERE scope = $1 AND key = $2 AND fingerprint = $3 AND result IS NULL',
      [claim.scope, claim.key, claim.fingerprint],
      { deadline: claimDeadline(this.db, claim, { renewPassed: true }) },
    );
  }

  async #purge(): Promise<void> {
    await this.db
      .query(
        `DELETE FROM idempotency_records WHERE ctid = ANY (ARRAY(
           SELECT ctid FROM idempotency_records WHERE expires_at <= $1 LIMIT $2))`,
        [this.clock.now(), PURGE_BATCH],
      )
      // Housekeeping only: the next purge tries again.
      .catch(() => undefined);
  }
}
