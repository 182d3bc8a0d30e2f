import type { RedisClient } from './redis-client.js';
import {
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENCY_MARK_RESOLUTION_MS,
  type IdempotencyClaim,
  type IdempotencyStart,
  type IdempotencyStore,
} from '../../ports/idempotency-store.js';
import { BEGIN_IDEMPOTENT_LUA, RELEASE_IDEMPOTENT_LUA } from './idempotency-scripts.lua.js';
import { PetsSlotKeys } from './pets-slot-keys.js';
import { orderOf } from './redis-order-record.js';
import { petOf } from './redis-pet-record.js';
import { fromRedis } from './redis-failures.js';

interface IdempotencyScripts {
  petstoreBeginIdempotent(record: string, fingerprint: string, inFlightMs: string, resolutionMs: string): Promise<(string | number)[]>;
  petstoreReleaseIdempotent(record: string, fingerprint: string): Promise<number>;
}

const STARTED: IdempotencyStart = { kind: 'started' };
const REUSED: IdempotencyStart = { kind: 'reused' };

/**
 * Idempotency-Key records shared by every instance: one hash per claim in the `{pets}` slot,
 * completed by the pet and order scripts in the step that stores, expired by Redis itself
 * (an in-flight mark after IDEMPOTENCY_IN_FLIGHT_MS, a completed record after 24 h). Each call is one script.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly redis: RedisClient & IdempotencyScripts;
  private readonly keys: PetsSlotKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.keys = new PetsSlotKeys(prefix);
    redis.defineCommand('petstoreBeginIdempotent', { numberOfKeys: 1, lua: BEGIN_IDEMPOTENT_LUA });
    redis.defineCommand('petstoreReleaseIdempotent', { numberOfKeys: 1, lua: RELEASE_IDEMPOTENT_LUA });
    this.redis = redis as RedisClient & IdempotencyScripts;
  }

  async begin(claim: IdempotencyClaim): Promise<IdempotencyStart> {
    const key = this.keys.idempotency(claim);
    const [kind, resultKind, id, record] = await fromRedis(this.redis, () =>
      this.redis.petstoreBeginIdempotent(key, claim.fingerprint, String(IDEMPOTENCY_IN_FLIGHT_MS), String(IDEMPOTENCY_MARK_RESOLUTION_MS)),
    );
    if (kind === 'started') return STARTED;
    if (kind === 'in_flight' && typeof resultKind === 'number') return { kind: 'in_flight', leftMs: resultKind };
    if (kind === 'reused') return REUSED;
    if (kind === 'replay' && typeof record === 'string') {
      if (resultKind === 'pet') return { kind: 'replay', result: { kind: 'pet', pet: petOf(Number(id), record) } };
      if (resultKind === 'order') return { kind: 'replay', result: { kind: 'order', order: orderOf(Number(id), record) } };
    }
    throw new Error(`Malformed Idempotency-Key record in Redis: ${String(kind)} ${String(resultKind)}`);
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    const key = this.keys.idempotency(claim);
    await fromRedis(this.redis, () => this.redis.petstoreReleaseIdempotent(key, claim.fingerprint));
  }
}
