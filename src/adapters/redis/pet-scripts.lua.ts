/*
 * Lua run inside Redis by RedisPetRepository. Kept as TypeScript modules exporting strings
 * so that `tsc` carries them into dist with the code (a .lua file would need a copy step
 * and a path lookup at run time), and apart from the TypeScript so the Lua reads as Lua.
 *
 * Ids and counts cross into strings with string.format('%d'): Lua's own number-to-string
 * conversion keeps 14 digits, which would turn a large id into 1e+15.
 */
import { MAX_ID } from '../../domain/pets/pet.js';
import { REMEMBER_LUA } from './record-scripts.lua.js';

/**
 * KEYS: next id counter, records hash, all-ids sorted set, the status's sorted set, and with a
 * claim its Idempotency-Key record.
 * ARGV: the record (JSON without the id), and with a claim its fingerprint and the record's lifetime in ms.
 * Returns the new id, or the id the claim already stored, or nil when the counter is at MAX_ID (ids
 * ran out: nothing stored). One script, so no pet is indexed without its record, nor stored without
 * the record of the request that created it.
 */
export const CREATE_PET_LUA = `${REMEMBER_LUA}
if KEYS[5] then
  -- This claim already stored its pet (its answer was lost, or its in-flight mark expired
  -- while a frozen Redis held the command): that pet, never a second one.
  local done = redis.call('HMGET', KEYS[5], 'f', 'k', 'i')
  if done[1] == ARGV[2] and done[2] == 'pet' then return done[3] end
end
if tonumber(redis.call('GET', KEYS[1]) or '0') >= ${MAX_ID} then return false end
local id = string.format('%d', redis.call('INCR', KEYS[1]))
redis.call('HSET', KEYS[2], id, ARGV[1])
redis.call('ZADD', KEYS[3], id, id)
redis.call('ZADD', KEYS[4], id, id)
if KEYS[5] then remember(KEYS[5], ARGV[2], 'pet', id, ARGV[1], ARGV[3]) end
return id
`;

/** KEYS: the sorted set of each status. Returns their sizes in the same order, read in one step. */
export const COUNT_PETS_LUA = `
local counts = {}
for i = 1, #KEYS do counts[i] = string.format('%d', redis.call('ZCARD', KEYS[i])) end
return counts
`;
