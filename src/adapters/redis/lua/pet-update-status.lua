-- KEYS: pet records, then the sorted set of each status (in the order of PET_STATUSES).
-- ARGV: pet id, its new status. Returns the record as it is then, or false when no pet has the
-- id. The record and its indexes change in one step: O(log n).
--#include "record-status.lua"
local PET_STATUSES = __PET_STATUSES__
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
