-- Rolls a managed key, if its record is still the one the caller read (compare and set), unless
-- the new secret's digest is taken: writes the record and the new secret's grant, keeps the old
-- secret's grant for its grace or deletes it, and deletes the secret before it, in one step.
-- KEYS[1] the registry's hash; ARGV: the id's field, the record read, the rolled record, the new
-- digest, its grant, the old secret's digest, its grant ('' when it has no grace), the older
-- secret's digest ('' when none). Returns 1, 0 when the record changed meanwhile, or -1 when the
-- new digest is taken.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('HEXISTS', KEYS[1], ARGV[4]) == 1 then return -1 end
if ARGV[8] ~= '' then redis.call('HDEL', KEYS[1], ARGV[8]) end
if ARGV[7] == '' then redis.call('HDEL', KEYS[1], ARGV[6]) else redis.call('HSET', KEYS[1], ARGV[6], ARGV[7]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3], ARGV[4], ARGV[5])
return 1
