-- KEYS: a subject's leases, a sorted set of lease id -> expiry (epoch ms). ARGV: now ('': the
-- Redis server's TIME), limit, lease ms, the new lease's id. Drops the expired leases, then takes a
-- slot when fewer than limit are held. Reply: { granted (1 or 0), the leases held after }.
--#include "concurrency-now.lua"
local now = concurrency_now(ARGV[1])
local lease_ms = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then return { 0, held } end
redis.call('ZADD', KEYS[1], now + lease_ms, ARGV[4])
-- The set outlives its last lease by nothing: an abandoned subject leaves no key behind.
redis.call('PEXPIRE', KEYS[1], lease_ms)
return { 1, held + 1 }
