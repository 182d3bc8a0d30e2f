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
 * num ('%d' or '%.17g'), which writes such integers in full.
 *
 * KEYS[1]  the subject's hash.
 * ARGV     now ('' to use the Redis server's TIME), rule count n, then limit and windowMs of
 *          each rule, then the ban policy: strikes, strikeWindowMs, banMs (strikes 0: none);
 *          QUOTA_LUA then takes the request's cost (units, 1 to the smallest limit), '1' to
 *          peek: answer what the request would get, counting, striking and writing nothing, and
 *          '1' to report a refusal's strikes: the times of the last ones, oldest first, after
 *          the reply's fields.
 * Hash     w    the windows the state was kept for; other windows start the subject over.
 *               Other limits (a plan change) keep everything: they decide from then on.
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
 *          bl   the limits bx was worked out for; under others (a plan changed during the
 *               ban) QUOTA_LUA works it out again, as the engine does.
 * Returns  verdict, decidedAt, retryAt, then remaining and resetAt of each rule; a peek then the
 *          strikes that would count towards a ban (the engine's strikesCounting).
 *
 * STRIKES_LUA adds the strikes a cache in front of the store answered itself (LocalRefusals),
 * by the same rules, in one atomic step of the subject's slot.
 */

/**
 * The helpers that read nothing of a call's KEYS or ARGV: defined once per batch, ahead of
 * the calls, rather than again in every call (a closure each, Redis's work per decision).
 */
const QUOTA_LUA_PURE = `
-- '%d' writes a whole number below 2^53 as '%.17g' does, in half the time (a decision writes
-- about eight); other numbers take '%.17g'.
local function num(x)
  if x % 1 == 0 and x > -2^53 and x < 2^53 and x ~= 0 then return string.format('%d', x) end
  return string.format('%.17g', x)
end

-- '' reads the Redis server's TIME.
local function timeOf(arg)
  if arg ~= '' then return tonumber(arg) end
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local PAIR = 12
local function pairAt(raw, j) return struct.unpack('<dI4', raw, 5 + (j - 1) * PAIR) end

-- When a request of cost fits a rule again if nothing else is counted: dropping buckets
-- oldest first, the drop time of the one that brings its count to limit - cost. nil when it
-- fits already.
local function ruleRetry(rule, cost)
  local count = rule.count
  if count + cost <= rule.limit then return nil end
  for j = rule.first, rule.pairs do
    local b, k = pairAt(rule.raw, j)
    count = count - k
    if count <= rule.limit - cost then return (b + 61) * rule.g end
  end
end

-- A refusal at t told to retry at retryAt (its Retry-After in whole seconds): how long the
-- refusals that follow are strikes.
local function toldUntil(refusedUntil, t, retryAt)
  return math.max(refusedUntil, t + 1000 * math.ceil((retryAt - t) / 1000))
end

-- A rule's ring after a change: its total, its counted pairs, then the pair given.
local function packed(rule, last)
  return struct.pack('<I4', rule.count) .. string.sub(rule.raw, 5 + (rule.first - 1) * PAIR) .. last
end
local function oldestDropTime(rule) return (pairAt(rule.raw, rule.first) + 61) * rule.g end
`;

/** What both scripts share: one definition of the rules, the strikes and the ban's answer. */
const QUOTA_LUA_HELPERS = `
local n = tonumber(ARGV[2])
local banStrikes = tonumber(ARGV[3 + 2 * n])
local strikeWindowMs = tonumber(ARGV[4 + 2 * n])
local banMs = tonumber(ARGV[5 + 2 * n])
local windows, limits = {}, {}
for i = 1, n do
  limits[i] = ARGV[1 + 2 * i]
  windows[i] = ARGV[2 + 2 * i]
end
local signature = table.concat(windows, ',')
local limitsSignature = table.concat(limits, ',')

-- What a ban answers at t: remaining 0, each rule's reset no earlier than the ban's end.
local function bannedReply(t, bannedUntil, resets)
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

-- Rule i's ring advanced to its current bucket c at time at: only buckets c-60 .. c are counted.
local function loadRule(i, raw, at)
  local g = tonumber(windows[i]) / 60
  local c = math.floor(at / g)
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
  return rule
end

-- The strike ring as stored (its size, then the times, oldest first); a ring of another size
-- (the policy changed) starts empty.
local function readStrikes(raw)
  local strikes = {}
  for v in string.gmatch(raw or '', '%S+') do strikes[#strikes + 1] = v end
  local size = table.remove(strikes, 1)
  if tonumber(size) ~= banStrikes then return {} end
  return strikes
end

-- Adds a strike at t and keeps the last banStrikes, in the order they reached the store (the
-- engine's ring: a clock stepping back, or a cache's strikes arriving late, leave them out of
-- time order). True when the oldest kept falls within strikeWindowMs of t: the ban starts.
local function addStrike(strikes, t)
  strikes[#strikes + 1] = num(t)
  if #strikes > banStrikes then table.remove(strikes, 1) end
  return #strikes == banStrikes and tonumber(strikes[1]) > t - strikeWindowMs
end

-- What a ban ending at bannedUntil answers under ARGV's limits, from the rules as loaded: each
-- rule's reset, the ban's end or, still spent then, when one request fits again (whatever the
-- cost of the one refused: the engine's banDecision), so a client obeying Retry-After is admitted.
local function resetsOf(bannedUntil, rules)
  local resets = {}
  for i = 1, n do resets[i] = num(math.max(bannedUntil, ruleRetry(rules[i], 1) or bannedUntil)) end
  return resets
end
local function writeBanAnswer(writes, resets)
  writes[#writes + 1] = 'bx'
  writes[#writes + 1] = table.concat(resets, ' ')
  writes[#writes + 1] = 'bl'
  writes[#writes + 1] = limitsSignature
end

-- A ban starting at banStart: bu and its answer.
local function writeBan(writes, banStart, rules)
  local bannedUntil = banStart + banMs
  local resets = resetsOf(bannedUntil, rules)
  writes[#writes + 1] = 'bu'
  writes[#writes + 1] = num(bannedUntil)
  writeBanAnswer(writes, resets)
  return bannedUntil, resets
end

-- The current ban's answer under ARGV's limits: bx when worked out for them (bl), else worked
-- out again from the rings as the ban left them at la, since nothing is counted during a ban.
-- The second value tells it was worked out again.
local function banAnswer(bx, bl, bannedUntil)
  if bl == limitsSignature then
    local resets = {}
    for v in string.gmatch(bx or '', '%S+') do resets[#resets + 1] = v end
    return resets, false
  end
  local fields = { 'la' }
  for i = 1, n do fields[1 + i] = 'r' .. i end
  local stored = redis.call('HMGET', KEYS[1], unpack(fields))
  local lastAt = tonumber(stored[1])
  local rules = {}
  for i = 1, n do rules[i] = loadRule(i, stored[1 + i] or '', lastAt) end
  return resetsOf(bannedUntil, rules), true
end
-- The strikes stored that would count towards a ban at t: those within strikeWindowMs.
local function strikesCounting(raw, t)
  local count = 0
  if banStrikes == 0 then return count end
  for _, at in ipairs(readStrikes(raw)) do
    if tonumber(at) > t - strikeWindowMs then count = count + 1 end
  end
  return count
end
local function writeStrikes(writes, strikes)
  writes[#writes + 1] = 'st'
  writes[#writes + 1] = table.concat({ num(banStrikes), unpack(strikes) }, ' ')
end
`;

const QUOTA_LUA = `${QUOTA_LUA_HELPERS}
local t = timeOf(ARGV[1])
local cost = tonumber(ARGV[6 + 2 * n])
local peek = ARGV[7 + 2 * n] == '1'
-- A refusal's reply then ends with the subject's strikes, oldest first: a cache answering its
-- next refusals counts them on, and tells the strike that starts the ban without asking.
local reportStrikes = ARGV[8 + 2 * n] == '1'

-- One read of everything a decision may need: a second read for the ban alone cost every
-- decision a command. A ban answers what was worked out when it started (bx: each rule's
-- reset) for the limits still in force (bl): nothing is counted during a ban.
local fields = { 'w', 'la', 'bu', 'ru', 'st', 'bx', 'bl' }
for i = 1, n do fields[7 + i] = 'r' .. i end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
local bannedUntil = -math.huge
if stored[1] == signature then bannedUntil = tonumber(stored[3]) or -math.huge end
if bannedUntil > t then
  local resets, again = banAnswer(stored[6], stored[7], bannedUntil)
  -- Kept for the rest of the ban, as the engine keeps it; a peek writes nothing.
  if again and not peek then
    local writes = {}
    writeBanAnswer(writes, resets)
    redis.call('HSET', KEYS[1], unpack(writes))
  end
  local answer = bannedReply(t, bannedUntil, resets)
  -- The ban emptied the strikes, and nothing strikes during it.
  if peek then answer[#answer + 1] = '0' end
  return answer
end

local writes = {}
if stored[1] ~= signature then
  if stored[1] and not peek then redis.call('DEL', KEYS[1]) end
  stored = {}
  writes = { 'w', signature }
end

-- Each rule's retry time for this request's cost, for the refusal.
local retries = {}

local lastAt = tonumber(stored[2]) or -math.huge
local at = math.max(t, lastAt)
writes[#writes + 1] = 'la'
writes[#writes + 1] = num(at)

local rules = {}
local admitted = true
for i = 1, n do
  local rule = loadRule(i, stored[7 + i] or '', at)
  if rule.count + cost > rule.limit then admitted = false end
  rules[i] = rule
end

local verdict = 'admitted'
local retryAt = t
local remaining = {}
local resetAt = {}

-- Each rule's room and reset, counting nothing, and when the request fits them all.
local function standing()
  for i = 1, n do
    local rule = rules[i]
    remaining[i] = math.max(0, rule.limit - rule.count)
    resetAt[i] = rule.count == 0 and t or oldestDropTime(rule)
    retries[i] = ruleRetry(rule, cost)
    if retries[i] then retryAt = math.max(retryAt, retries[i]) end
  end
end
local function reply()
  local answer = { verdict, num(t), num(retryAt) }
  for i = 1, n do
    answer[2 + 2 * i] = num(remaining[i])
    answer[3 + 2 * i] = num(resetAt[i])
  end
  return answer
end

if peek then
  if not admitted then verdict = 'rate_limited' end
  standing()
  local answer = reply()
  answer[#answer + 1] = num(strikesCounting(stored[5], t))
  return answer
end

if admitted then
  for i = 1, n do
    local rule = rules[i]
    remaining[i] = rule.limit - rule.count - cost
    local newest, k = nil, 0
    if rule.first <= rule.pairs then newest, k = pairAt(rule.raw, rule.pairs) end
    rule.count = rule.count + cost
    if newest == rule.c then rule.raw = string.sub(rule.raw, 1, #rule.raw - PAIR) end
    local value = packed(rule, struct.pack('<dI4', rule.c, newest == rule.c and k + cost or cost))
    rule.raw = value
    rule.first = 1
    resetAt[i] = oldestDropTime(rule)
    writes[#writes + 1] = 'r' .. i
    writes[#writes + 1] = value
  end
else
  verdict = 'rate_limited'
  standing()
  for i = 1, n do
    local rule = rules[i]
    -- Keep the forgetting, so later refusals do not redo it.
    if rule.first > 1 then
      writes[#writes + 1] = 'r' .. i
      writes[#writes + 1] = packed(rule, '')
    end
  end
end

local refusedUntil = tonumber(stored[4]) or -math.huge
local banResets
local strikes = {}
if verdict == 'rate_limited' and banStrikes > 0 then
  local strike = t < refusedUntil
  refusedUntil = toldUntil(refusedUntil, t, retryAt)
  writes[#writes + 1] = 'ru'
  writes[#writes + 1] = num(refusedUntil)
  strikes = readStrikes(stored[5])
  if strike then
    if addStrike(strikes, t) then
      bannedUntil, banResets = writeBan(writes, t, rules)
      strikes = {}
    end
    writeStrikes(writes, strikes)
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

if banResets then return bannedReply(t, bannedUntil, banResets) end
local answer = reply()
if reportStrikes and verdict == 'rate_limited' then
  for _, at in ipairs(strikes) do answer[#answer + 1] = at end
end
return answer
`;

/**
 * KEYS[1]  the subject's hash.
 * ARGV     as QUOTA_LUA's, then the time and the told retryAt of each strike, in order.
 * Each strike counts as the refusal it was would have in QUOTA_LUA: none during a ban, a
 * strike only while an earlier Retry-After runs; one falling in a ban (even one these strikes
 * started: a short ban may pass within a flush) is none. A ban starts at the strike that
 * completes it. The counters are only read. Strikes for a state kept for other windows (or
 * forgotten) are dropped, as QUOTA_LUA would start that subject over.
 * Returns  the ban's answer when the subject is banned afterwards (as QUOTA_LUA's), else nil.
 */
const STRIKES_LUA = `${QUOTA_LUA_HELPERS}
local t = timeOf(ARGV[1])
local fields = { 'w', 'la', 'bu', 'ru', 'st', 'bx', 'bl' }
for i = 1, n do fields[7 + i] = 'r' .. i end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
if stored[1] ~= signature then return nil end

local bannedUntil = tonumber(stored[3]) or -math.huge
local refusedUntil = tonumber(stored[4]) or -math.huge
local strikes = readStrikes(stored[5])
local banStart
for j = 6 + 2 * n, #ARGV, 2 do
  local at = tonumber(ARGV[j])
  if at >= bannedUntil then
    local strike = at < refusedUntil
    refusedUntil = toldUntil(refusedUntil, at, tonumber(ARGV[j + 1]))
    if strike and addStrike(strikes, at) then
      banStart = at
      bannedUntil = at + banMs
      strikes = {}
    end
  end
end

local writes = { 'ru', num(refusedUntil) }
local resets
if banStart then
  local rules = {}
  local at = math.max(t, tonumber(stored[2]) or -math.huge)
  for i = 1, n do rules[i] = loadRule(i, stored[7 + i] or '', at) end
  bannedUntil, resets = writeBan(writes, banStart, rules)
end
writeStrikes(writes, strikes)
redis.call('HSET', KEYS[1], unpack(writes))
-- Keep the subject at least as long as QUOTA_LUA would have after these refusals.
local ttl = math.max(redis.call('PTTL', KEYS[1]), bannedUntil - t + 1000, refusedUntil - t + 1000, strikeWindowMs + 1000)
redis.call('PEXPIRE', KEYS[1], string.format('%d', math.ceil(ttl)))

if bannedUntil <= t then return nil end
if not resets then resets = banAnswer(stored[6], stored[7], bannedUntil) end
return bannedReply(t, bannedUntil, resets)
`;

/**
 * Every call of RedisQuotaStore made in one event-loop turn, in one script call: each run in
 * turn, as separate calls would run one after the other, so a reset or strikes sent after a
 * decision still come after it. Each script sees its call's KEYS and ARGV (the names shadow
 * the batch's own).
 * KEYS     each call's subject hash (on a Cluster, all in one slot).
 * ARGV     for each call, its kind ('decide': QUOTA_LUA, 'strikes': STRIKES_LUA, 'reset': DEL),
 *          the number of its arguments, then the script's ARGV.
 * Returns  each call's reply: QUOTA_LUA's, STRIKES_LUA's (nil for none) or DEL's; a call that
 *          fails (a key of another type under the prefix: WRONGTYPE) is its own error reply, so
 *          it fails only its own request, not the others of the turn.
 */
export const QUOTA_CALLS_LUA = `${QUOTA_LUA_PURE}
local function decide(KEYS, ARGV)
${QUOTA_LUA}
end
local function recordStrikes(KEYS, ARGV)
${STRIKES_LUA}
end
local replies = {}
local at = 1
for c = 1, #KEYS do
  local kind, count = ARGV[at], tonumber(ARGV[at + 1])
  local keys, args = { KEYS[c] }, { unpack(ARGV, at + 2, at + 1 + count) }
  local ok, reply
  if kind == 'decide' then ok, reply = pcall(decide, keys, args)
  elseif kind == 'strikes' then ok, reply = pcall(recordStrikes, keys, args)
  else ok, reply = pcall(redis.call, 'DEL', KEYS[c]) end
  if ok then replies[c] = reply or false
  else replies[c] = redis.error_reply(type(reply) == 'table' and reply.err or tostring(reply)) end
  at = at + 2 + count
end
return replies
`;
