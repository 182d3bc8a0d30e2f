-- KEYS: a subject's leases (see concurrency-acquire.lua). ARGV: now ('': the Redis server's TIME),
-- lease ms, then the lease ids its holder still holds. Each one not yet expired runs lease ms from
-- now again; an expired one stays gone, its slot maybe taken by another request. Reply: 0.
--#include "concurrency-now.lua"
local now = concurrency_now(ARGV[1])
local lease_ms = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 3, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', now + lease_ms, ARGV[i])
end
if redis.call('ZCARD', KEYS[1]) > 0 then redis.call('PEXPIRE', KEYS[1], lease_ms) end
return 0
