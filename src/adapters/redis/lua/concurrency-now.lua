-- The time a concurrency script decides at: ARGV's (a test clock), or '' for the Redis server's
-- TIME, so instances with skewed clocks expire each other's leases at one time.
local function concurrency_now(given)
  if given ~= '' then return tonumber(given) end
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
