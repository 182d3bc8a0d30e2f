-- A record's status is its last field, as the adapters write it (redis-pet-record.ts,
-- redis-order-record.ts): the scripts read and replace it at the end of the JSON, so every
-- other byte stays as written. cjson would re-encode the whole record, and it writes numbers
-- with 14 digits: a categoryId of 2^53 - 1 would come back rounded.
local function statusOf(record) return string.match(record, '"status":"(%a+)"}$') end
local function withStatus(record, status)
  return (string.gsub(record, '"status":"%a+"}$', '"status":"' .. status .. '"}'))
end
