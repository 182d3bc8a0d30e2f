/*
 * Lua run inside Redis by RedisPetRepository. Kept as TypeScript modules exporting strings
 * so that `tsc` carries them into dist with the code (a .lua file would need a copy step
 * and a path lookup at run time), and apart from the TypeScript so the Lua reads as Lua.
 *
 * Ids and counts cross into strings with string.format('%d'): Lua's own number-to-string
 * conversion keeps 14 digits, which would turn a large id into 1e+15.
 */
import { MAX_ID, PET_STATUSES } from '../../domain/pets/pet.js';
import { RECORD_STATUS_LUA, REMEMBER_LUA } from './record-scripts.lua.js';

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

/**
 * KEYS: pet records, then the sorted set of each status (in the order of PET_STATUSES).
 * ARGV: pet id, its new status. Returns the record as it is then, or false when no pet has the
 * id. The record and its indexes change in one step: O(log n).
 */
export const UPDATE_PET_STATUS_LUA = `${RECORD_STATUS_LUA}
local PET_STATUSES = { ${PET_STATUSES.map((status) => `'${status}'`).join(', ')} }
local function statusKey(status)
  for i = 1, #PET_STATUSES do if PET_STATUSES[i] == status then return KEYS[1 + i] end end
  error('unknown pet status ' .. tostring(status))
end
local pet = redis.call('HGET', KEYS[1], ARGV[1])
if not pet then return false end
local from = statusOf(pet)
if from == ARGV[2] then return pet end
local changed = withStatus(pet, ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], changed)
redis.call('ZREM', statusKey(from), ARGV[1])
redis.call('ZADD', statusKey(ARGV[2]), ARGV[1], ARGV[1])
return changed
`;
