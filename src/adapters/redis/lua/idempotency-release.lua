-- KEYS: the claim's record (see idempotency-begin.lua). ARGV: fingerprint. Drops an in-flight
-- mark of that fingerprint, never a completed record.
if redis.call('HGET', KEYS[1], 'f') == ARGV[1] and redis.call('HEXISTS', KEYS[1], 'k') == 0 then
  redis.call('DEL', KEYS[1])
end
return 0
