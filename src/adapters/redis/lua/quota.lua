-- The whole quota decision of RedisQuotaStore, run atomically inside Redis: every rule, the
-- strike and the ban in one call, one round trip. It is the in-memory engine
-- (src/domain/quota/quota-engine.ts) over a different storage, decision for decision; a
-- differential property test holds them to that, and another holds its ban rule to the
-- domain's (src/domain/quota/ban-policy.ts).
--
-- Composed by quota-script.lua.ts (lua-source.ts): a capitalised name between double
-- underscores is a constant of the TypeScript that names it, put in once when the module loads. __GRANULES__ is the domain's granule count per
-- window, __RING__ the buckets a rule counts (the current one and the __GRANULES__ before it).
--
-- Numbers: Redis runs Lua 5.1, whose numbers are doubles. Granules are whole milliseconds
-- (windows are multiples of __GRANULES__ ms), so times, bucket indices and drop times are integers far
-- below 2^53 and every operation is exact, as in JavaScript. A burst rule's level is whole
-- unit-milliseconds up to limit * windowMs, below 2^53 (the arithmetic of burst-bucket.ts).
-- Lua's own number-to-string conversion keeps only 14 digits (1e+15), so every number stored
-- goes through num ('%d' or '%.17g'), which writes such integers in full. Numbers answered are
-- packed as doubles, exact.
--
-- The wire: the arguments of a script call are one string, the reply one binary string (and
-- the calls' errors). The instance is the busier side, and ioredis spends per argument and per
-- reply value (a call of eight decisions: 59 arguments cost 17 µs to encode, 56 integer
-- replies 20 µs to decode, where one string each way costs 2 µs and packed doubles 1.3 µs).
--
-- Hash     w    the windows the state was kept for, a burst rule's marked __BURST__; other windows or
--               kinds start the subject over. Other limits or modes (a plan change) keep
--               everything: they decide from then on.
--          la   lastAt: the latest time counted to. A clock stepping back keeps counting in
--               the newest bucket rather than rewriting the past.
--          r<i> rule i's __RING__-bucket ring, stored sparse and packed: the running total (uint32),
--               then (bucket: double, count: uint32) for each non-empty bucket, oldest first;
--               at most __RING__ pairs, and 16 bytes for a subject seen once. Requests
--               are only counted in the newest bucket and buckets only drop from the oldest
--               end, so a decision reads and rewrites the two ends, not every bucket.
--               A burst rule's instead: its level at la in unit-milliseconds, a decimal (none: 0).
--          ru   refusedUntil: the end of the last Retry-After told, in whole seconds.
--          st   the strike ring's size, then the times of the last strikes, oldest first.
--          bu   bannedUntil.
--          bx   what the ban answers, worked out when it started: each rule's reset.
--          bl   the limits and modes bx was worked out for; under others (a plan changed
--               during the ban) decide works it out again from the rings, as the engine does:
--               a refund during the ban may have changed them since.
--          ex   when the key was last set to expire (the scripts' time): a decision sets the
--               expiry again only when it must move later, which for a busy subject is once
--               a granule of its shortest window, not once a request.
--          sa   when the hash was made (the deciding call's time): a request counted before it
--               was counted by a subject since forgotten, and a refund leaves this one alone.
--               None in a hash made before refunds: any refund is its own.
--          v    the layout of all the above (QUOTA_LAYOUT in quota-script.lua.ts), written when
--               the hash is made; none in a hash made before layouts were numbered, which is
--               layout 1. Counters of another layout are never read (checkLayout).

-- The arguments after the keys, sent as one string, each followed by a space.
local A = {}
for v in string.gmatch(ARGV[1], '([^ ]*) ') do A[#A + 1] = v end

local ADMITTED, RATE_LIMITED, BANNED = __ADMITTED__, __RATE_LIMITED__, __BANNED__

-- '%d' writes a whole number below 2^53 as '%.17g' does, in half the time; other numbers take '%.17g'.
local function num(x)
  if x % 1 == 0 and x > -2^53 and x < 2^53 and x ~= 0 then return string.format('%d', x) end
  return string.format('%.17g', x)
end

-- '' reads the Redis server's TIME, once per script call: its calls run at one moment anyway.
local serverTime
local function timeOf(arg)
  if arg ~= '' then return tonumber(arg) end
  if not serverTime then
    local time = redis.call('TIME')
    serverTime = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  return serverTime
end

local PAIR = 12
local function pairAt(raw, j) return struct.unpack('<dI4', raw, 5 + (j - 1) * PAIR) end

-- A burst rule (rule.w, its windowMs) past its room for cost units, in unit-milliseconds:
-- positive when the request does not fit.
local function overflow(rule, cost) return rule.level - rule.cap + cost * rule.w end

-- Whether a rule has no room for a request of cost.
local function full(rule, cost)
  if rule.w then return overflow(rule, cost) > 0 end
  return rule.count + cost > rule.limit
end

-- When a request of cost fits a rule again if nothing else is counted: a burst rule's level
-- drained enough; a window's buckets dropped oldest first, the drop time of the one that brings
-- its count to limit - cost. nil when it fits already.
local function ruleRetry(rule, cost)
  if rule.w then
    local over = overflow(rule, cost)
    if over <= 0 then return nil end
    return rule.at + math.ceil(over / rule.limit)
  end
  local count = rule.count
  if count + cost <= rule.limit then return nil end
  for j = rule.first, rule.pairs do
    local b, k = pairAt(rule.raw, j)
    count = count - k
    if count <= rule.limit - cost then return (b + __RING__) * rule.g end
  end
end

-- A refusal at t told to retry at retryAt (its Retry-After in whole seconds): how long the
-- refusals that follow are strikes.
local function toldUntil(refusedUntil, t, retryAt)
  return math.max(refusedUntil, t + 1000 * math.ceil((retryAt - t) / 1000))
end

-- A rule's ring after a change: its total, its counted pairs up to pair upTo, then the pair
-- given: the ring is copied once.
local function packed(rule, upTo, last)
  return struct.pack('<I4', rule.count) .. string.sub(rule.raw, 5 + (rule.first - 1) * PAIR, 4 + upTo * PAIR) .. last
end
local function oldestDropTime(rule) return (pairAt(rule.raw, rule.first) + __RING__) * rule.g end

-- What a rule still admits at once.
local function remainingOf(rule)
  if rule.w then
    local room = rule.cap - rule.level
    return room > 0 and math.floor(room / rule.w) or 0
  end
  return math.max(0, rule.limit - rule.count)
end

-- When a rule's remaining next rises: t when it counts nothing.
local function resetOf(rule, t)
  if rule.w then
    if rule.level == 0 then return t end
    return ruleRetry(rule, remainingOf(rule) + 1)
  end
  return rule.count == 0 and t or oldestDropTime(rule)
end

-- What an admitted decision reports as strikes; never changed (readStrikes makes a new ring).
local NO_STRIKES = {}

-- The hash fields a decision reads, before the rings r1..rn.
local STATE_FIELDS = { 'w', 'la', 'bu', 'ru', 'st', 'bx', 'bl', 'ex', 'v' }
local LAYOUT_AT = #STATE_FIELDS
local RINGS = #STATE_FIELDS

-- Counters written in another layout than this script's are never read, nor overwritten: the
-- call fails with __LAYOUT_ERROR__, which the instance takes as its store unavailable for that
-- subject (its quota outage policy answers), as an older instance must during a rolling deploy
-- that changes the layout. A later layout migrates the ones before it here, in the script.
local function checkLayout(key, layout)
  if layout and tonumber(layout) ~= __QUOTA_LAYOUT__ then
    error({ err = __LAYOUT_ERROR__ .. ' ' .. key .. ' holds quota counters of layout ' .. layout .. '; this instance reads layout ' .. __QUOTA_LAYOUT__ })
  end
end

-- The policy whose arguments start at A[at]: rule count n, limit, windowMs (__BURST__ before a
-- burst rule's) and mode of each rule (__SHADOW__ for a shadow rule, which never refuses), then
-- the ban policy: strikes, strikeWindowMs, banMs (strikes 0: none). Returns it and where the
-- next argument starts.
local function policyAt(at)
  local n = tonumber(A[at])
  local policy = { n = n, limits = {}, g = {}, w = {}, shadow = {}, fields = {} }
  local termArgs, windowArgs = {}, {}
  for i, field in ipairs(STATE_FIELDS) do policy.fields[i] = field end
  for i = 1, n do
    -- Limit and mode: under other modes the engine works a ban's answer out again, as under other limits.
    termArgs[i] = A[at + 3 * i - 2] .. A[at + 3 * i]
    windowArgs[i] = A[at + 3 * i - 1]
    policy.limits[i] = tonumber(A[at + 3 * i - 2])
    if string.sub(windowArgs[i], 1, 1) == __BURST__ then
      policy.w[i] = tonumber(string.sub(windowArgs[i], 2))
    else
      policy.g[i] = tonumber(windowArgs[i]) / __GRANULES__
    end
    policy.shadow[i] = A[at + 3 * i] == __SHADOW__
    policy.fields[RINGS + i] = 'r' .. i
  end
  policy.signature = table.concat(windowArgs, ',')
  policy.termsSignature = table.concat(termArgs, ',')
  policy.banStrikes = tonumber(A[at + 3 * n + 1])
  policy.strikeWindowMs = tonumber(A[at + 3 * n + 2])
  policy.banMs = tonumber(A[at + 3 * n + 3])
  return policy, at + 3 * n + 4
end

-- A decision's costs, one per rule, from its argument: one number for every rule, or the
-- costs of each joined by __COST_SEPARATOR__ (0: the request does not match the rule).
local function costsOf(policy, arg)
  local costs = {}
  if string.find(arg, __COST_SEPARATOR__, 1, true) then
    for v in string.gmatch(arg, '[^' .. __COST_SEPARATOR__ .. ']+') do costs[#costs + 1] = tonumber(v) end
  else
    local cost = tonumber(arg)
    for i = 1, policy.n do costs[i] = cost end
  end
  return costs
end

-- What a ban answers at t: remaining 0, each rule's reset no earlier than the ban's end, and
-- the retry the latest of the enforced rules' (a shadow rule never holds a client back).
local function bannedReply(policy, t, bannedUntil, resets)
  local reply = { BANNED, t, 0, 0 }
  local retryAt = bannedUntil
  for i = 1, policy.n do
    local reset = math.max(bannedUntil, tonumber(resets[i]) or bannedUntil)
    if not policy.shadow[i] then retryAt = math.max(retryAt, reset) end
    reply[3 + 2 * i] = 0
    reply[4 + 2 * i] = reset
  end
  reply[3] = retryAt
  -- Counted nothing: the time counted at is the decision's own.
  reply[#reply + 1] = t
  return reply
end

-- Rule i advanced from lastAt to at: a window's ring to its current bucket c (only buckets
-- c-__GRANULES__ .. c are counted), a burst rule's level drained (compared first, so the product stays
-- below the level: the engine's drainedLevel).
local function loadRule(policy, i, raw, at, lastAt)
  local w = policy.w[i]
  if w then
    local limit = policy.limits[i]
    local stored = tonumber(raw) or 0
    local level = 0
    if at - lastAt < math.ceil(stored / limit) then level = stored - (at - lastAt) * limit end
    return { limit = limit, w = w, cap = limit * w, level = level, stored = stored, at = at }
  end
  local g = policy.g[i]
  local c = math.floor(at / g)
  local rule = { limit = policy.limits[i], g = g, c = c, raw = raw, pairs = 0, first = 1, count = 0 }
  if raw ~= '' then
    rule.pairs = (#raw - 4) / PAIR
    rule.count = struct.unpack('<I4', raw)
    while rule.first <= rule.pairs do
      local b, k = pairAt(raw, rule.first)
      if b > c - __RING__ then break end
      rule.count = rule.count - k
      rule.first = rule.first + 1
    end
  end
  return rule
end

-- The strike ring as stored (its size, then the times, oldest first); a ring of another size
-- (the policy changed) starts empty.
local function readStrikes(policy, raw)
  local strikes = {}
  for v in string.gmatch(raw or '', '%S+') do strikes[#strikes + 1] = v end
  local size = table.remove(strikes, 1)
  if tonumber(size) ~= policy.banStrikes then return {} end
  return strikes
end

-- Adds a strike at t and keeps the last banStrikes, in the order they reached the store (the
-- engine's ring: a clock stepping back, or a cache's strikes arriving late, leave them out of
-- time order). True when the oldest kept falls within strikeWindowMs of t: the ban starts.
local function addStrike(policy, strikes, t)
  strikes[#strikes + 1] = num(t)
  if #strikes > policy.banStrikes then table.remove(strikes, 1) end
  return #strikes == policy.banStrikes and tonumber(strikes[1]) > t - policy.strikeWindowMs
end

-- What a ban ending at bannedUntil answers under the policy's limits, from the rules as loaded:
-- each rule's reset, the ban's end or, still spent then, when one request fits again (whatever
-- the cost of the one refused: the engine's banDecision), so a client obeying Retry-After is admitted.
local function resetsOf(policy, bannedUntil, rules)
  local resets = {}
  for i = 1, policy.n do resets[i] = num(math.max(bannedUntil, ruleRetry(rules[i], 1) or bannedUntil)) end
  return resets
end
local function writeBanAnswer(policy, writes, resets)
  writes[#writes + 1] = 'bx'
  writes[#writes + 1] = table.concat(resets, ' ')
  writes[#writes + 1] = 'bl'
  writes[#writes + 1] = policy.termsSignature
end

-- A ban starting at banStart: bu and its answer.
local function writeBan(policy, writes, banStart, rules)
  local bannedUntil = banStart + policy.banMs
  local resets = resetsOf(policy, bannedUntil, rules)
  writes[#writes + 1] = 'bu'
  writes[#writes + 1] = num(bannedUntil)
  writeBanAnswer(policy, writes, resets)
  return bannedUntil, resets
end

-- The current ban's answer under the policy's limits and modes: bx when worked out for them
-- (bl), else worked out again from the rings as they stand at la (nothing is counted during a
-- ban; a refund may have given back since). The second value tells it was worked out again.
local function banAnswer(key, policy, bx, bl, bannedUntil)
  if bl == policy.termsSignature then
    local resets = {}
    for v in string.gmatch(bx or '', '%S+') do resets[#resets + 1] = v end
    return resets, false
  end
  local fields = { 'la' }
  for i = 1, policy.n do fields[1 + i] = policy.fields[RINGS + i] end
  local stored = redis.call('HMGET', key, unpack(fields))
  local lastAt = tonumber(stored[1])
  local rules = {}
  for i = 1, policy.n do rules[i] = loadRule(policy, i, stored[1 + i] or '', lastAt, lastAt) end
  return resetsOf(policy, bannedUntil, rules), true
end
-- The strikes stored that would count towards a ban at t: those within strikeWindowMs.
local function strikesCounting(policy, raw, t)
  local count = 0
  if policy.banStrikes == 0 then return count end
  for _, at in ipairs(readStrikes(policy, raw)) do
    if tonumber(at) > t - policy.strikeWindowMs then count = count + 1 end
  end
  return count
end
local function writeStrikes(policy, writes, strikes)
  writes[#writes + 1] = 'st'
  writes[#writes + 1] = table.concat({ num(policy.banStrikes), unpack(strikes) }, ' ')
end

-- Each rule's room and reset, counting nothing, into remaining and resetAt; returns when a
-- request of costs fits every enforced rule it matches.
local function standing(policy, rules, t, costs, remaining, resetAt)
  local retryAt = t
  for i = 1, policy.n do
    local rule = rules[i]
    remaining[i] = remainingOf(rule)
    resetAt[i] = resetOf(rule, t)
    local retry = costs[i] > 0 and not policy.shadow[i] and ruleRetry(rule, costs[i])
    if retry then retryAt = math.max(retryAt, retry) end
  end
  return retryAt
end
-- verdict, decidedAt, retryAt, the number of shadow rules without room, each rule's remaining
-- and reset, those shadow rules' indices (from 0, as the policy's in TypeScript), then when the
-- request was counted (countedAt: t unless the clock stepped back; t when nothing was).
local function decisionReply(policy, verdict, t, retryAt, remaining, resetAt, shadowed, countedAt)
  local answer = { verdict, t, retryAt, #shadowed }
  for i = 1, policy.n do
    answer[3 + 2 * i] = remaining[i]
    answer[4 + 2 * i] = resetAt[i]
  end
  for _, i in ipairs(shadowed) do answer[#answer + 1] = i - 1 end
  answer[#answer + 1] = countedAt
  return answer
end

-- One decision of a subject (its hash at key) under a policy, at nowArg ('' for the server's
-- TIME), for a request of costs (each rule's units, 0 to its limit; 0: the rule neither
-- decides nor counts it). Admitted when every enforced rule it matches has room; then every
-- rule it matches counts it, and the shadow rules without room are reported. mode: '' decide; __PEEK__
-- peek: answer what the request would get, counting, striking and writing nothing, the strikes
-- that would count towards a ban (the engine's strikesCounting) after the reply's fields;
-- __REPORT_STRIKES__ report strikes: a refusal's reply then ends with the subject's strikes, oldest
-- first, so a cache answering its next refusals counts them on and tells the strike that starts
-- the ban without asking.
-- alike: how many decisions of this subject, the same in all else, come here in a row (1 for
-- one). When every one of them fits every rule it matches, shadow rules included, all are
-- counted in this one read and write (they run at one moment: one after another they would be
-- admitted each, none shadowed, nothing else changing but the count), and the second value
-- returned says how many were; the first answer's remaining less each rule's cost for each one
-- after it is theirs. Otherwise only this one is.
-- Returns  decisionReply's fields; the number of decisions it made.
local function decide(key, policy, nowArg, costs, mode, alike)
  local t = timeOf(nowArg)
  local peek = mode == __PEEK__
  local n = policy.n

  -- One read of everything a decision may need: a second read for the ban alone cost every
  -- decision a command. A ban answers what was worked out when it started (bx: each rule's
  -- reset) for the limits and modes still in force (bl).
  local stored = redis.call('HMGET', key, unpack(policy.fields))
  checkLayout(key, stored[LAYOUT_AT])
  local bannedUntil = -math.huge
  if stored[1] == policy.signature then bannedUntil = tonumber(stored[3]) or -math.huge end
  if bannedUntil > t then
    local resets, again = banAnswer(key, policy, stored[6], stored[7], bannedUntil)
    -- Kept for the rest of the ban, as the engine keeps it; a peek writes nothing.
    if again and not peek then
      local writes = {}
      writeBanAnswer(policy, writes, resets)
      redis.call('HSET', key, unpack(writes))
    end
    local answer = bannedReply(policy, t, bannedUntil, resets)
    -- The ban emptied the strikes, and nothing strikes during it.
    if peek then answer[#answer + 1] = 0 end
    return answer, 1
  end

  local writes = {}
  if stored[1] ~= policy.signature then
    if stored[1] and not peek then redis.call('DEL', key) end
    stored = {}
    writes = { 'w', policy.signature, 'v', __QUOTA_LAYOUT__, 'sa', num(t) }
  end

  local lastAt = tonumber(stored[2]) or -math.huge
  local at = math.max(t, lastAt)
  writes[#writes + 1] = 'la'
  writes[#writes + 1] = num(at)

  local rules = {}
  local admitted = true
  local shadowed = {}
  if peek then alike = 1 end
  for i = 1, n do
    local rule = loadRule(policy, i, stored[RINGS + i] or '', at, lastAt)
    local cost = costs[i]
    if cost > 0 then
      if full(rule, cost) then
        if policy.shadow[i] then shadowed[#shadowed + 1] = i else admitted = false end
      end
      if full(rule, alike * cost) then alike = 1 end
    end
    rules[i] = rule
  end

  local remaining, resetAt = {}, {}
  if peek then
    local retryAt = standing(policy, rules, t, costs, remaining, resetAt)
    local answer = decisionReply(policy, admitted and ADMITTED or RATE_LIMITED, t, retryAt, remaining, resetAt, shadowed, t)
    answer[#answer + 1] = strikesCounting(policy, stored[5], t)
    return answer, 1
  end

  local verdict, retryAt = ADMITTED, t
  if admitted then
    for i = 1, n do
      local rule = rules[i]
      local cost = costs[i]
      if cost == 0 then
        -- Not matched: counts nothing, reported as it stands.
        remaining[i] = remainingOf(rule)
        resetAt[i] = resetOf(rule, t)
      elseif rule.w then
        -- The first decision's answer; the level counts all alike. Only a shadow rule passes
        -- its capacity (alone then), and it stops at __MAX_BURST_LEVEL__, as in the engine.
        local level = rule.level
        rule.level = math.min(level + cost * rule.w, __MAX_BURST_LEVEL__)
        remaining[i] = remainingOf(rule)
        resetAt[i] = resetOf(rule, t)
        if alike > 1 then rule.level = level + alike * cost * rule.w end
      else
        local counted = alike * cost
        remaining[i] = math.max(0, rule.limit - rule.count - cost)
        local newest, k = nil, 0
        if rule.first <= rule.pairs then newest, k = pairAt(rule.raw, rule.pairs) end
        rule.count = rule.count + counted
        -- The newest pair counted on when it is the current bucket, else a new pair after it.
        local kept = newest == rule.c and rule.pairs - 1 or rule.pairs
        local value = packed(rule, kept, struct.pack('<dI4', rule.c, newest == rule.c and k + counted or counted))
        rule.raw = value
        rule.first = 1
        resetAt[i] = oldestDropTime(rule)
        writes[#writes + 1] = policy.fields[RINGS + i]
        writes[#writes + 1] = value
      end
    end
  else
    verdict = RATE_LIMITED
    retryAt = standing(policy, rules, t, costs, remaining, resetAt)
    for i = 1, n do
      local rule = rules[i]
      -- Keep the forgetting, so later refusals do not redo it.
      if not rule.w and rule.first > 1 then
        writes[#writes + 1] = policy.fields[RINGS + i]
        writes[#writes + 1] = packed(rule, rule.pairs, '')
      end
    end
  end

  -- Burst levels are kept as of la, just written.
  for i = 1, n do
    local rule = rules[i]
    if rule.w and rule.level ~= rule.stored then
      writes[#writes + 1] = policy.fields[RINGS + i]
      writes[#writes + 1] = num(rule.level)
    end
  end

  local refusedUntil = tonumber(stored[4]) or -math.huge
  local banResets
  local strikes = NO_STRIKES
  if verdict == RATE_LIMITED and policy.banStrikes > 0 then
    local strike = t < refusedUntil
    refusedUntil = toldUntil(refusedUntil, t, retryAt)
    writes[#writes + 1] = 'ru'
    writes[#writes + 1] = num(refusedUntil)
    strikes = readStrikes(policy, stored[5])
    if strike then
      if addStrike(policy, strikes, t) then
        bannedUntil, banResets = writeBan(policy, writes, t, rules)
        strikes = {}
      end
      writeStrikes(policy, writes, strikes)
    end
  end

  -- Expire the subject once nothing kept can change a decision (as the in-memory store forgets
  -- it): every counted bucket dropped, every bucket drained, the Retry-After told passed, the
  -- strikes out of their window, the ban over. The margin covers the rounding to whole
  -- milliseconds. Set only when that is later than the expiry set last (ex).
  local ttl = math.max(bannedUntil - t, refusedUntil - t)
  for i = 1, n do
    local rule = rules[i]
    if rule.w then
      ttl = math.max(ttl, rule.at + math.ceil(rule.level / rule.limit) - t)
    else
      ttl = math.max(ttl, (rule.c + __RING__) * rule.g - t)
    end
  end
  if policy.banStrikes > 0 then ttl = math.max(ttl, policy.strikeWindowMs) end
  ttl = math.ceil(ttl) + 1000
  local expires = t + ttl > (tonumber(stored[8]) or -math.huge)
  if expires then
    writes[#writes + 1] = 'ex'
    writes[#writes + 1] = num(t + ttl)
  end
  redis.call('HSET', key, unpack(writes))
  if expires then redis.call('PEXPIRE', key, string.format('%d', ttl)) end

  if banResets then return bannedReply(policy, t, bannedUntil, banResets), 1 end
  local answer = decisionReply(policy, verdict, t, retryAt, remaining, resetAt, shadowed, admitted and at or t)
  if mode == __REPORT_STRIKES__ and verdict == RATE_LIMITED then
    for _, at in ipairs(strikes) do answer[#answer + 1] = tonumber(at) end
  end
  return answer, admitted and alike or 1
end

-- The strikes a cache in front of the store answered itself (LocalRefusals), added to a
-- subject by the same rules, in one atomic step of the subject's slot: A[from .. to] holds
-- the time and the told retryAt of each strike, in order. Each strike counts as the refusal it
-- was would have in decide: none during a ban, a strike only while an earlier Retry-After
-- runs; one falling in a ban (even one these strikes started: a short ban may pass within a
-- flush) is none. A ban starts at the strike that completes it. The counters are only read.
-- Strikes for a state kept for other windows (or forgotten) are dropped, as decide would start
-- that subject over.
-- Returns  the ban's answer when the subject is banned afterwards (as decide's), else nil.
local function recordStrikes(key, policy, nowArg, from, to)
  local t = timeOf(nowArg)
  local n = policy.n
  local stored = redis.call('HMGET', key, unpack(policy.fields))
  checkLayout(key, stored[LAYOUT_AT])
  if stored[1] ~= policy.signature then return nil end

  local bannedUntil = tonumber(stored[3]) or -math.huge
  local refusedUntil = tonumber(stored[4]) or -math.huge
  local strikes = readStrikes(policy, stored[5])
  local banStart
  for j = from, to, 2 do
    local at = tonumber(A[j])
    if at >= bannedUntil then
      local strike = at < refusedUntil
      refusedUntil = toldUntil(refusedUntil, at, tonumber(A[j + 1]))
      if strike and addStrike(policy, strikes, at) then
        banStart = at
        bannedUntil = at + policy.banMs
        strikes = {}
      end
    end
  end

  local writes = { 'ru', num(refusedUntil) }
  local resets
  if banStart then
    local rules = {}
    local lastAt = tonumber(stored[2]) or -math.huge
    local at = math.max(t, lastAt)
    for i = 1, n do rules[i] = loadRule(policy, i, stored[RINGS + i] or '', at, lastAt) end
    bannedUntil, resets = writeBan(policy, writes, banStart, rules)
  end
  writeStrikes(policy, writes, strikes)
  -- Keep the subject at least as long as decide would have after these refusals.
  local ttl = math.ceil(math.max(redis.call('PTTL', key), bannedUntil - t + 1000, refusedUntil - t + 1000, policy.strikeWindowMs + 1000))
  writes[#writes + 1] = 'ex'
  writes[#writes + 1] = num(t + ttl)
  redis.call('HSET', key, unpack(writes))
  redis.call('PEXPIRE', key, string.format('%d', ttl))

  if bannedUntil <= t then return nil end
  if not resets then resets = banAnswer(key, policy, stored[6], stored[7], bannedUntil) end
  return bannedReply(policy, t, bannedUntil, resets)
end
-- A refund of a request counted at countedAt (the engine's refundQuota): each window rule's units of
-- costs (costsOf) back to the pair of the bucket that counted them, floor(countedAt / g),
-- while it is still counted at the later of t and la, at most what it holds, the pair dropped
-- once empty; no other pair changes, and la stays. A burst rule's level at la loses what of the
-- units would not have drained by then, drained from countedAt on (never below 0). A hash kept for other windows, made after countedAt (sa)
-- or last counted to before it (la) is another subject's state: nothing. Strikes, a ban and its
-- answer (bx), and the Retry-After told stand. Counts only fall, so the expiry set still covers them.
-- Returns  nil.
local REFUND_FIELDS = { 'w', 'la', 'sa', 'v' }
local function refund(key, policy, nowArg, countedAt, costArg)
  local t = timeOf(nowArg)
  local costs = costsOf(policy, costArg)
  local fields = { unpack(REFUND_FIELDS) }
  for i = 1, policy.n do fields[#REFUND_FIELDS + i] = policy.fields[RINGS + i] end
  local stored = redis.call('HMGET', key, unpack(fields))
  checkLayout(key, stored[4])
  local lastAt = tonumber(stored[2]) or -math.huge
  if stored[1] ~= policy.signature or countedAt < (tonumber(stored[3]) or -math.huge) or countedAt > lastAt then return nil end
  local at = math.max(t, lastAt)
  local writes = {}
  for i = 1, policy.n do
    local w = policy.w[i]
    if w then
      local whole, limit = costs[i] * w, policy.limits[i]
      -- Compared first, as drainedLevel does, so that no product passes 2^53.
      if costs[i] > 0 and at - countedAt < math.ceil(whole / limit) then
        local level = tonumber(stored[#REFUND_FIELDS + i]) or 0
        writes[#writes + 1] = policy.fields[RINGS + i]
        writes[#writes + 1] = num(math.max(0, level - (whole - (at - countedAt) * limit)))
      end
    else
      -- The ring as counted to la, which a refund leaves where it is: a clock stepped back still counts from there.
      local rule = loadRule(policy, i, stored[#REFUND_FIELDS + i] or '', lastAt)
      local b = math.floor(countedAt / rule.g)
      if costs[i] > 0 and b > math.floor(at / rule.g) - __RING__ then
        -- Pairs are oldest first: past b, it has none (it held nothing).
        for j = rule.first, rule.pairs do
          local bucket, k = pairAt(rule.raw, j)
          if bucket >= b then
            if bucket == b then
              local back = math.min(k, costs[i])
              rule.count = rule.count - back
              local kept = k > back and struct.pack('<dI4', b, k - back) or ''
              writes[#writes + 1] = policy.fields[RINGS + i]
              writes[#writes + 1] = packed(rule, j - 1, kept .. string.sub(rule.raw, 5 + j * PAIR))
            end
            break
          end
        end
      end
    end
  end
  if #writes > 0 then redis.call('HSET', key, unpack(writes)) end
  return nil
end

-- Every call of RedisQuotaStore made in one event-loop turn, in one script call: each run in
-- turn, as separate calls would run one after the other, so a reset or strikes sent after a
-- decision still come after it.
-- KEYS     each call's subject hash (on a Cluster, all in one slot).
-- ARGV[1]  the arguments (A), each followed by a space: the number of policies, then each
--          policy's arguments (policyAt); then the calls, each its kind and arguments:
--          consecutive decisions alike (most of a turn's: one plan, the server's time, cost 1)
--          as one run, __CALL_DECIDE__, its number of calls, their policy's number, now ('' to use the
--          Redis server's TIME), cost (costsOf) and mode; strikes __CALL_STRIKES__, their policy's number, now, the
--          number of values that follow, then the time and told retryAt of each strike; a refund
--          __CALL_REFUND__, its policy's number, now, countedAt and the units (costsOf); a reset
--          (any other kind) nothing after it. Splitting the arguments is Lua's work, about 0.2 µs
--          an argument: runs keep eight decisions at six, not forty. The decisions of a run on
--          one subject in a row (a busy key's: all eight of a turn) go to decide together.
-- Returns  the calls' replies packed as little-endian doubles, each its number of values then
--          the values: decide's, recordStrikes's (__REPLY_NONE__ for none), refund's (__REPLY_NONE__) or
--          DEL's count; then the
--          error of each call that failed (__REPLY_FAILED__ in its place: a key of another type under
--          the prefix, WRONGTYPE, or counters of another layout), so it fails only its own
--          request, not the others of the turn.
local policies = {}
local at = 2
for p = 1, tonumber(A[1]) do policies[p], at = policyAt(at) end

local answers, errors = {}, {}
-- struct's format for a reply of n values after its count, made once per n.
local packFormats = {}
local function packFormat(n)
  local format = packFormats[n]
  if not format then
    format = '<d' .. string.rep('d', n)
    packFormats[n] = format
  end
  return format
end
local function settle(c, ok, reply)
  if not ok then
    answers[c] = struct.pack('<d', __REPLY_FAILED__)
    errors[#errors + 1] = redis.error_reply(type(reply) == 'table' and reply.err or tostring(reply))
  elseif reply == nil then
    answers[c] = struct.pack('<d', __REPLY_NONE__)
  else
    if type(reply) ~= 'table' then reply = { reply } end
    answers[c] = struct.pack(packFormat(#reply), #reply, unpack(reply))
  end
end

local c = 1
while c <= #KEYS do
  local kind = A[at]
  if kind == __CALL_DECIDE__ then
    local count, policy, nowArg, mode = tonumber(A[at + 1]), policies[tonumber(A[at + 2])], A[at + 3], A[at + 5]
    local costs = costsOf(policy, A[at + 4])
    at = at + 6
    local last = c + count - 1
    while c <= last do
      -- The calls of this run on the same subject as c, c included.
      local alike = 1
      while c + alike <= last and KEYS[c + alike] == KEYS[c] do alike = alike + 1 end
      local ok, answer, decided = pcall(decide, KEYS[c], policy, nowArg, costs, mode, alike)
      settle(c, ok, answer)
      if not ok then decided = 1 end
      for j = 1, decided - 1 do
        local following = { unpack(answer) }
        for i = 1, policy.n do following[3 + 2 * i] = answer[3 + 2 * i] - j * costs[i] end
        settle(c + j, true, following)
      end
      c = c + decided
    end
  elseif kind == __CALL_STRIKES__ then
    local count = tonumber(A[at + 3])
    settle(c, pcall(recordStrikes, KEYS[c], policies[tonumber(A[at + 1])], A[at + 2], at + 4, at + 3 + count))
    at = at + 4 + count
    c = c + 1
  elseif kind == __CALL_REFUND__ then
    settle(c, pcall(refund, KEYS[c], policies[tonumber(A[at + 1])], A[at + 2], tonumber(A[at + 3]), A[at + 4]))
    at = at + 5
    c = c + 1
  else
    settle(c, pcall(redis.call, 'DEL', KEYS[c]))
    at = at + 1
    c = c + 1
  end
end
return { table.concat(answers), unpack(errors) }
