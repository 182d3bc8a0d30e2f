-- Stores a managed key: its record under its id and its grant under its digest, in one step,
-- unless either field exists already. KEYS[1] the registry's hash; ARGV: the id's field, the
-- record, the digest, the grant. Returns 1, or 0 when the id or the digest is taken.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[1], ARGV[3]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
return 1
