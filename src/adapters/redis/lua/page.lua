-- A page of records (RedisOrderRepository).
-- KEYS: records hash, the sorted set to page (scored by id).
-- ARGV: afterId, limit. Returns id, record, id, record... ascending: O(log n + limit), one round trip.
local ids = redis.call('ZRANGE', KEYS[2], '(' .. ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, ARGV[2])
if #ids == 0 then return {} end
local records = redis.call('HMGET', KEYS[1], unpack(ids))
local page = {}
for i = 1, #ids do
  page[2 * i - 1] = ids[i]
  page[2 * i] = records[i]
end
return page
