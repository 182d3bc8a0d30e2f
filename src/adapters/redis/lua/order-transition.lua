-- Moves an order to a new status and its pet with it, in one step (RedisOrderRepository).
-- KEYS: order records, pet records, then the set of each order status, the owner's set of each
-- order status (both in the order of ORDER_STATUSES), and the set of each pet status (in the
-- order of PET_STATUSES).
-- ARGV: order id, the order's new status, its pet's new status, then the statuses it may move from.
-- Returns {'changed', record}, {'refused', record} (the order as it is) or {'not_found'}.
--#include "record-status.lua"
local ORDER_STATUSES = __ORDER_STATUSES__
local PET_STATUSES = __PET_STATUSES__
local function position(list, value)
  for i = 1, #list do if list[i] == value then return i end end
  error('unknown status ' .. tostring(value))
end
local function move(firstKey, list, from, to, id)
  redis.call('ZREM', KEYS[firstKey + position(list, from)], id)
  redis.call('ZADD', KEYS[firstKey + position(list, to)], id, id)
end

local order = redis.call('HGET', KEYS[1], ARGV[1])
if not order then return { 'not_found' } end
local status = statusOf(order)
local allowed = false
for i = 4, #ARGV do allowed = allowed or ARGV[i] == status end
if not allowed then return { 'refused', order } end

local changed = withStatus(order, ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], changed)
move(2, ORDER_STATUSES, status, ARGV[2], ARGV[1])
move(2 + #ORDER_STATUSES, ORDER_STATUSES, status, ARGV[2], ARGV[1])

local petId = string.match(order, '^{"petId":(%d+),')
local pet = redis.call('HGET', KEYS[2], petId)
redis.call('HSET', KEYS[2], petId, withStatus(pet, ARGV[3]))
move(2 + 2 * #ORDER_STATUSES, PET_STATUSES, statusOf(pet), ARGV[3], petId)
return { 'changed', changed }
