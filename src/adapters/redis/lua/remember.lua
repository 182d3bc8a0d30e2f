-- The Idempotency-Key record of a request that stored something: its fingerprint and what it
-- stored (kind, id, record as written), replacing its in-flight mark, kept `ms` milliseconds.
local function remember(key, fingerprint, kind, id, record, ms)
  redis.call('HSET', key, 'f', fingerprint, 'k', kind, 'i', id, 'r', record)
  redis.call('PEXPIRE', key, ms)
end
