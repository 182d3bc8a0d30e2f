-- Creates a pet (RedisPetRepository).
-- KEYS: next id counter, records hash, all-ids sorted set, the status's sorted set, and with a
-- claim its Idempotency-Key record.
-- ARGV: the record (JSON without the id), and with a claim its fingerprint and the record's lifetime in ms.
-- Returns the new id, or the id the claim already stored, or nil when the counter is at MAX_ID (ids
-- ran out: nothing stored). One script, so no pet is indexed without its record, nor stored without
-- the record of the request that created it.
-- Ids and counts cross into strings with string.format('%d'): Lua's own number-to-string
-- conversion keeps 14 digits, which would turn a large id into 1e+15.
--#include "remember.lua"
if KEYS[5] then
  -- This claim already stored its pet (its answer was lost, or its in-flight mark expired
  -- while a frozen Redis held the command): that pet, never a second one.
  local done = redis.call('HMGET', KEYS[5], 'f', 'k', 'i')
  if done[1] == ARGV[2] and done[2] == 'pet' then return done[3] end
end
if tonumber(redis.call('GET', KEYS[1]) or '0') >= __MAX_ID__ then return false end
local id = string.format('%d', redis.call('INCR', KEYS[1]))
redis.call('HSET', KEYS[2], id, ARGV[1])
redis.call('ZADD', KEYS[3], id, id)
redis.call('ZADD', KEYS[4], id, id)
if KEYS[5] then remember(KEYS[5], ARGV[2], 'pet', id, ARGV[1], ARGV[3]) end
return id
