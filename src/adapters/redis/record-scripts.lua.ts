/*
 * Lua functions the pet, order and Idempotency-Key scripts share, prepended to their source.
 *
 * A record's status is its last field, as the adapters write it (redis-pet-record.ts,
 * redis-order-record.ts): the scripts read and replace it at the end of the JSON, so every
 * other byte stays as written. cjson would re-encode the whole record, and it writes numbers
 * with 14 digits: a categoryId of 2^53 - 1 would come back rounded.
 */
export const RECORD_STATUS_LUA = `
local function statusOf(record) return string.match(record, '"status":"(%a+)"}$') end
local function withStatus(record, status)
  return (string.gsub(record, '"status":"%a+"}$', '"status":"' .. status .. '"}'))
end
`;

/**
 * The Idempotency-Key record of a request that stored something: its fingerprint and what it
 * stored (kind, id, record as written), replacing its in-flight mark, kept `ms` milliseconds.
 */
export const REMEMBER_LUA = `
local function remember(key, fingerprint, kind, id, record, ms)
  redis.call('HSET', key, 'f', fingerprint, 'k', kind, 'i', id, 'r', record)
  redis.call('PEXPIRE', key, ms)
end
`;
