-- Places an order (RedisOrderRepository): one atomic step over the order, its pet and their
-- indexes, all in the `{pets}` slot: of any number of concurrent orders for one pet, on any
-- number of instances, exactly one finds it available.
-- KEYS: pet records, available pets, pending pets, order next id, order records, all order ids,
-- placed orders, the owner's orders, the owner's placed orders, and with a claim its
-- Idempotency-Key record.
-- ARGV: pet id, the order's record (JSON without the id, status `placed`), and with a claim its
-- fingerprint and the record's lifetime in ms.
-- Returns {'placed', id, record} (the order the claim already placed, if it did), {'pet_not_found'},
-- {'pet_unavailable'} or {'ids_exhausted'} (the order counter at MAX_ID: nothing changed).
--#include "record-status.lua"
--#include "remember.lua"
if KEYS[10] then
  -- This claim already placed its order: that order as placed, never a second one.
  local done = redis.call('HMGET', KEYS[10], 'f', 'k', 'i', 'r')
  if done[1] == ARGV[3] and done[2] == 'order' then return { 'placed', done[3], done[4] } end
end
local pet = redis.call('HGET', KEYS[1], ARGV[1])
if not pet then return { 'pet_not_found' } end
if statusOf(pet) ~= 'available' then return { 'pet_unavailable' } end
if tonumber(redis.call('GET', KEYS[4]) or '0') >= __MAX_ID__ then return { 'ids_exhausted' } end
redis.call('HSET', KEYS[1], ARGV[1], withStatus(pet, 'pending'))
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[1])
local id = string.format('%d', redis.call('INCR', KEYS[4]))
redis.call('HSET', KEYS[5], id, ARGV[2])
for i = 6, 9 do redis.call('ZADD', KEYS[i], id, id) end
if KEYS[10] then remember(KEYS[10], ARGV[3], 'order', id, ARGV[2], ARGV[4]) end
return { 'placed', id, ARGV[2] }
