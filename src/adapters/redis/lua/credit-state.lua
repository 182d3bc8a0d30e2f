-- A subject's credits (RedisCreditLedger), all in one Cluster slot: KEYS[1] its balance, a hash
-- of `balance`, `period` and, once refilled, `before_balance` and `before_period` (the
-- CreditBalance of credit-balance.ts); KEYS[2] its usage rows, a hash of `<period>:<column>`
-- counters; KEYS[3] the periods those rows are of, a sorted set (member and score the period).
-- The caller passes the period its `now` falls in (credit-periods.ts): no calendar arithmetic
-- here, only periods compared. Numbers are doubles, exact for the integers a ledger holds (below
-- 2^53); they are written with '%d', as tostring would write 1e15 as 1e+15.
local function credit_int(n)
  return string.format('%d', n)
end

-- Adds `by` to a column of the usage row of `period`, the row created (all columns 0) if new.
local function credit_count(period, column, by)
  local at = credit_int(period)
  redis.call('ZADD', KEYS[3], at, at)
  redis.call('HINCRBY', KEYS[2], at .. ':' .. column, credit_int(by))
end

-- The balance at `period`: a subject never seen opens at `initial`; a later period than the
-- stored one refills once up to `credits`, never down, entered in the usage row it opens. An
-- earlier one (an instance whose clock lags one that already refilled) changes nothing.
local function credit_refilled(period, credits, initial)
  local kept = redis.call('HMGET', KEYS[1], 'balance', 'period', 'before_balance', 'before_period')
  if not kept[1] then return { balance = initial, period = period } end
  local state = { balance = tonumber(kept[1]), period = tonumber(kept[2]) }
  if kept[3] then state.before = { balance = tonumber(kept[3]), period = tonumber(kept[4]) } end
  if period <= state.period then return state end
  local balance = math.max(credits, state.balance)
  credit_count(period, 'refilled', balance - state.balance)
  return { balance = balance, period = period, before = { balance = state.balance, period = state.period } }
end

-- Stores `state` (a `before` once set is only ever replaced, never dropped).
local function credit_keep(state)
  if state.before then
    redis.call('HSET', KEYS[1], 'balance', credit_int(state.balance), 'period', credit_int(state.period),
      'before_balance', credit_int(state.before.balance), 'before_period', credit_int(state.before.period))
  else
    redis.call('HSET', KEYS[1], 'balance', credit_int(state.balance), 'period', credit_int(state.period))
  end
end
