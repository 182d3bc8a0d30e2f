-- KEYS: a subject's leases (see concurrency-acquire.lua). ARGV: now ('': the Redis server's TIME).
-- Reply: the leases not expired at now, changing nothing.
--#include "concurrency-now.lua"
return redis.call('ZCOUNT', KEYS[1], string.format('(%d', concurrency_now(ARGV[1])), '+inf')
