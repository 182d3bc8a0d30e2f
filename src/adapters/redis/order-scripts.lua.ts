/*
 * Lua run inside Redis by RedisOrderRepository (see pet-scripts.lua.ts on why Lua lives in
 * TypeScript modules). Each script is one atomic step over the order, its pet and their
 * indexes, all in the `{pets}` slot: of any number of concurrent orders for one pet, on any
 * number of instances, exactly one finds it available.
 */
import { ORDER_STATUSES } from '../../domain/orders/order.js';
import { MAX_ID, PET_STATUSES } from '../../domain/pets/pet.js';
import { RECORD_STATUS_LUA, REMEMBER_LUA } from './record-scripts.lua.js';

const luaList = (values: readonly string[]): string => `{ ${values.map((value) => `'${value}'`).join(', ')} }`;

/**
 * KEYS: pet records, available pets, pending pets, order next id, order records, all order ids,
 * placed orders, the owner's orders, the owner's placed orders, and with a claim its
 * Idempotency-Key record.
 * ARGV: pet id, the order's record (JSON without the id, status `placed`), and with a claim its
 * fingerprint and the record's lifetime in ms.
 * Returns {'placed', id, record} (the order the claim already placed, if it did), {'pet_not_found'},
 * {'pet_unavailable'} or {'ids_exhausted'} (the order counter at MAX_ID: nothing changed).
 */
export const PLACE_ORDER_LUA = `${RECORD_STATUS_LUA}${REMEMBER_LUA}
if KEYS[10] then
  -- This claim already placed its order: that order as placed, never a second one.
  local done = redis.call('HMGET', KEYS[10], 'f', 'k', 'i', 'r')
  if done[1] == ARGV[3] and done[2] == 'order' then return { 'placed', done[3], done[4] } end
end
local pet = redis.call('HGET', KEYS[1], ARGV[1])
if not pet then return { 'pet_not_found' } end
if statusOf(pet) ~= 'available' then return { 'pet_unavailable' } end
if tonumber(redis.call('GET', KEYS[4]) or '0') >= ${MAX_ID} then return { 'ids_exhausted' } end
redis.call('HSET', KEYS[1], ARGV[1], withStatus(pet, 'pending'))
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[1])
local id = string.format('%d', redis.call('INCR', KEYS[4]))
redis.call('HSET', KEYS[5], id, ARGV[2])
for i = 6, 9 do redis.call('ZADD', KEYS[i], id, id) end
if KEYS[10] then remember(KEYS[10], ARGV[3], 'order', id, ARGV[2], ARGV[4]) end
return { 'placed', id, ARGV[2] }
`;

/**
 * KEYS: order records, pet records, then the set of each order status, the owner's set of each
 * order status (both in the order of ORDER_STATUSES), and the set of each pet status (in the
 * order of PET_STATUSES).
 * ARGV: order id, the order's new status, its pet's new status, then the statuses it may move from.
 * Returns {'changed', record}, {'refused', record} (the order as it is) or {'not_found'}.
 */
export const TRANSITION_ORDER_LUA = `${RECORD_STATUS_LUA}
local ORDER_STATUSES = ${luaList(ORDER_STATUSES)}
local PET_STATUSES = ${luaList(PET_STATUSES)}
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
`;
