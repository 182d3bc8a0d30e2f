/*
 * The whole quota decision of RedisQuotaStore, run atomically inside Redis: every rule, the
 * strike and the ban in one call, one round trip. It is the in-memory engine
 * (src/domain/quota/quota-engine.ts) over a different storage, decision for decision; a
 * differential property test holds them to that.
 *
 * Kept as a TypeScript module exporting the source, so `tsc` carries it into dist with the
 * code (a .lua file would need a copy step and a path lookup at run time), and in a file of
 * its own so the Lua reads, and is reviewed, as Lua.
 *
 * Numbers: Redis runs Lua 5.1, whose numbers are doubles. Granules are whole milliseconds
 * (windows are multiples of 60 ms), so times, bucket indices and drop times are integers far
 * below 2^53 and every operation is exact, as in JavaScript. Lua's own number-to-string
 * conversion keeps only 14 digits (1e+15), so every number leaving the script goes through
 * string.format('%.17g'), which writes such integers in full.
 *
 * KEYS[1]  the subject's hash.
 * ARGV     now ('' to use the Redis server's TIME), rule count n, then limit and windowMs of
 *          each rule, then the ban policy: strikes, strikeWindowMs, banMs (strikes 0: none).
 * Hash     w    the windows the state was kept for; other windows start the subject over.
 *          la   lastAt: the latest time counted to. A clock stepping back keeps counting in
 *               the newest bucket rather than rewriting the past.
 *          r<i> rule i's 61-bucket ring, stored sparse and packed: the running total (uint32),
 *               then (bucket: double, count: uint32) for each non-empty bucket, oldest first;
 *               at most 61 pairs, 736 bytes, and 16 bytes for a subject seen once. Requests
 *               are only counted in the newest bucket and buckets only drop from the oldest
 *               end, so a decision reads and rewrites the two ends, not every bucket.
 *          ru   refusedUntil: the end of the last Retry-After told, in whole seconds.
 *          st   the strike ring's size, then the times of the last strikes, oldest first.
 *          bu   bannedUntil.
 *          bx   what the ban answers, worked out when it started: each rule's reset.
 * Returns  verdict, decidedAt, retryAt, then remaining and resetAt of each rule.
 */
export const QUOTA_LUA = `
local function num(x) return string.format('%.17g', x) end

local t
if ARGV[1] == '' then
  local time = redis.call('TIME')
  t = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  t = tonumber(ARGV[1])
end
local n = tonumber(ARGV[2])
local banStrikes = tonumber(ARGV[3 + 2 * n])
local strikeWindowMs = tonumber(ARGV[4 + 2 * n])
local banMs = tonumber(ARGV[5 + 2 * n])

local windows = {}
for i = 1, n do windows[i] = ARGV[2 + 2 * i] end
local signature = table.concat(windows, ',')

-- A ban answers what was worked out when it started (bx: each rule's reset), so a banned
-- subject costs one small read: nothing is counted during a ban.
local head = redis.call('HMGET', KEYS[1], 'w', 'bu', 'bx')
local bannedUntil = -math.huge
if head[1] == signature then bannedUntil = tonumber(head[2]) or -math.huge end
local function bannedReply(resets)
  local reply = { 'banned', num(t), '' }
  local retryAt = bannedUntil
  for i = 1, n do
    local reset = math.max(bannedUntil, tonumber(resets[i]) or bannedUntil)
    retryAt = math.max(retryAt, reset)
    reply[2 + 2 * i] = '0'
    reply[3 + 2 * i] = num(reset)
  end
  reply[3] = num(retryAt)
  return reply
end
if bannedUntil > t then
  local resets = {}
  for v in string.gmatch(head[3] or '', '%S+') do resets[#resets + 1] = v end
  return bannedReply(resets)
end

local fields = { 'w', 'la', 'bu', 'ru', 'st' }
for i = 1, n do fields[5 + i] = 'r' .. i end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
local writes = {}
if stored[1] ~= signature then
  if stored[1] then redis.call('DEL', KEYS[1]) end
  stored = {}
  writes = { 'w', signature }
end

local PAIR = 12
local function pairAt(raw, j) return struct.unpack('<dI4', raw, 5 + (j - 1) * PAIR) end
-- When a rule counting at least its limit admits again if nothing else is counted: dropping
-- buckets oldest first (pairs first .. last of raw), the drop time of the one that brings
-- its count below the limit.
local function retryTime(raw, first, last, count, limit, g)
  for j = first, last do
    local b, k = pairAt(raw, j)
    count = count - k
    if count <= limit - 1 then return (b + 61) * g end
  end
end

-- When a ban starts: each rule resets at the ban's end or, still spent then, when it admits
-- again (ruleRetry), and Retry-After points to the latest reset, so a client that obeys it is
-- admitted.
local ruleRetry = {}

local lastAt = tonumber(stored[2]) or -math.huge
local at = math.max(t, lastAt)
writes[#writes + 1] = 'la'
writes[#writes + 1] = num(at)

-- Advance each rule to its current bucket c: only buckets c-60 .. c are counted.
local rules = {}
local admitted = true
for i = 1, n do
  local g = tonumber(windows[i]) / 60
  local c = math.floor(at / g)
  local raw = stored[5 + i] or ''
  local rule = { limit = tonumber(ARGV[1 + 2 * i]), g = g, c = c, raw = raw, pairs = 0, first = 1, count = 0 }
  if raw ~= '' then
    rule.pairs = (#raw - 4) / PAIR
    rule.count = struct.unpack('<I4', raw)
    while rule.first <= rule.pairs do
      local b, k = pairAt(raw, rule.first)
      if b > c - 61 then break end
      rule.count = rule.count - k
      rule.first = rule.first + 1
    end
  end
  if rule.count >= rule.limit then admitted = false end
  rules[i] = rule
end

-- A rule's ring after a change: its total, its counted pairs, then the pair given.
local function packed(rule, last)
  return struct.pack('<I4', rule.count) .. string.sub(rule.raw, 5 + (rule.first - 1) * PAIR) .. last
end
local function oldestDropTime(rule) return (pairAt(rule.raw, rule.first) + 61) * rule.g end

local verdict = 'admitted'
local retryAt = t
local remaining = {}
local resetAt = {}
if admitted then
  for i = 1, n do
    local rule = rules[i]
    remaining[i] = rule.limit - rule.count - 1
    local newest, k = nil, 0
    if rule.first <= rule.pairs then newest, k = pairAt(rule.raw, rule.pairs) end
    rule.count = rule.count + 1
    if newest == rule.c then rule.raw = string.sub(rule.raw, 1, #rule.raw - PAIR) end
    local value = packed(rule, struct.pack('<dI4', rule.c, newest == rule.c and k + 1 or 1))
    rule.raw = value
    rule.first = 1
    resetAt[i] = oldestDropTime(rule)
    writes[#writes + 1] = 'r' .. i
    writes[#writes + 1] = value
  end
else
  verdict = 'rate_limited'
  for i = 1, n do
    local rule = rules[i]
    remaining[i] = math.max(0, rule.limit - rule.count)
    resetAt[i] = rule.count == 0 and t or oldestDropTime(rule)
    if rule.count >= rule.limit then
      ruleRetry[i] = retryTime(rule.raw, rule.first, rule.pairs, rule.count, rule.limit, rule.g)
      retryAt = math.max(retryAt, ruleRetry[i])
    end
    -- Keep the forgetting, so later refusals do not redo it.
    if rule.first > 1 then
      writes[#writes + 1] = 'r' .. i
      writes[#writes + 1] = packed(rule, '')
    end
  end
end

local refusedUntil = tonumber(stored[4]) or -math.huge
if verdict == 'rate_limited' and banStrikes > 0 then
  local strike = t < refusedUntil
  refusedUntil = math.max(refusedUntil, t + 1000 * math.ceil((retryAt - t) / 1000))
  writes[#writes + 1] = 'ru'
  writes[#writes + 1] = num(refusedUntil)
  if strike then
    local strikes = {}
    for v in string.gmatch(stored[5] or '', '%S+') do strikes[#strikes + 1] = v end
    -- A ring of another size (the policy changed) starts empty.
    local size = table.remove(strikes, 1)
    if tonumber(size) ~= banStrikes then strikes = {} end
    strikes[#strikes + 1] = num(t)
    if #strikes > banStrikes then table.remove(strikes, 1) end
    if #strikes == banStrikes and tonumber(strikes[1]) > t - strikeWindowMs then
      bannedUntil = t + banMs
      verdict = 'banned'
      strikes = {}
      local resets = {}
      for i = 1, n do resets[i] = num(math.max(bannedUntil, ruleRetry[i] or bannedUntil)) end
      writes[#writes + 1] = 'bu'
      writes[#writes + 1] = num(bannedUntil)
      writes[#writes + 1] = 'bx'
      writes[#writes + 1] = table.concat(resets, ' ')
    end
    writes[#writes + 1] = 'st'
    writes[#writes + 1] = table.concat({ num(banStrikes), unpack(strikes) }, ' ')
  end
end

-- Expire the subject once nothing kept can change a decision (as the in-memory store forgets
-- it): every counted bucket dropped, the Retry-After told passed, the strikes out of their
-- window, the ban over. The margin covers the rounding to whole milliseconds.
local ttl = math.max(bannedUntil - t, refusedUntil - t)
for i = 1, n do ttl = math.max(ttl, (rules[i].c + 61) * rules[i].g - t) end
if banStrikes > 0 then ttl = math.max(ttl, strikeWindowMs) end
redis.call('HSET', KEYS[1], unpack(writes))
redis.call('PEXPIRE', KEYS[1], string.format('%d', math.ceil(ttl) + 1000))

if verdict == 'banned' then return bannedReply(ruleRetry) end
local reply = { verdict, num(t), num(retryAt) }
for i = 1, n do
  reply[2 + 2 * i] = num(remaining[i])
  reply[3 + 2 * i] = num(resetAt[i])
end
return reply
`;
