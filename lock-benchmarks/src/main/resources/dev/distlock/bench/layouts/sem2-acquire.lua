-- A throw-away sketch, not lock-core's: the acquire of a semaphore in "layout 2" (docs/benchmarks.md, "A layout 2,
-- priced", the cheapest form found), timed by SemaphoreLayoutCost against today's sem-acquire.lua and Redisson's.
-- One hash per semaphore, KEYS[1] '<p>:{<k>}:sem': 'layout' = '2', 'count', 'waiting', 'fence' (the last fencing
-- token), 'next' (no lease ends before it) and one field per holder, '<token>' = '<lease end> <permits> <fence>
-- <hold id>[ w]'. KEYS[2] the restart grace marker. A plain (not fair) call: the fair path was not written.
-- Returns the fencing token when granted, else -1 - (ms until the earliest lease end).
local OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, WATCHDOG, TOKEN_RETENTION_MILLIS, PERMIT_LIMIT, PERMITS, WAITING,
  RESTART_GRACE_MILLIS = unpack(ARGV)
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
local s = redis.call('HMGET', KEYS[1], 'layout', 'count', 'waiting', 'fence', OWNER_TOKEN, 'next')
if s[1] and s[1] ~= '2' then
  return redis.error_reply('DISTLOCK_LAYOUT ' .. s[1] .. ' 2')
end
if s[5] then
  local leaseEnd, fence = string.match(s[5], '^(%d+) %d+ (%d+)')
  if tonumber(leaseEnd) > nowMillis then
    return tonumber(fence)
  end
end
local count, limit, asked = tonumber(s[2] or 0), tonumber(PERMIT_LIMIT), tonumber(PERMITS)
local earliest = tonumber(s[6])
-- 'next': no lease ends before it (grants lower it, renewals and releases leave it); holders are scanned only past it
if (count + asked > limit and (earliest or 0) <= nowMillis) or s[5] then
  earliest = nil
  local all, gone = redis.call('HGETALL', KEYS[1]), {}
  count = 0
  for i = 1, #all, 2 do
    if #all[i] == 32 then
      local leaseEnd, permits = string.match(all[i + 1], '^(%d+) (%d+)')
      leaseEnd = tonumber(leaseEnd)
      if leaseEnd <= nowMillis then
        gone[#gone + 1] = all[i]
      else
        count = count + tonumber(permits)
        earliest = math.min(earliest or leaseEnd, leaseEnd)
      end
    end
  end
  if #gone > 0 then
    redis.call('HDEL', KEYS[1], unpack(gone))
  end
  redis.call('HSET', KEYS[1], 'count', count, 'next', earliest or 0)
end
if count + asked <= limit then
  if redis.call('EXISTS', KEYS[2]) == 0 then
    return -1
  end
  local fence = now[1] * 1000000 + now[2]
  local last = tonumber(s[4] or 0)
  if last >= fence then
    fence = last + 1
  end
  local fenceText = string.format('%d', fence)
  local leaseEnd = string.format('%d', nowMillis + LEASE_MILLIS)
  local value = leaseEnd .. ' ' .. PERMITS .. ' ' .. fenceText .. ' ' .. HOLD_ID
    .. (WATCHDOG == '1' and ' w' or '')
  if s[1] then
    if earliest and earliest <= nowMillis + LEASE_MILLIS then
      redis.call('HSET', KEYS[1], OWNER_TOKEN, value, 'count', count + asked, 'fence', fenceText)
    else
      redis.call('HSET', KEYS[1], OWNER_TOKEN, value, 'count', count + asked, 'fence', fenceText, 'next', leaseEnd)
    end
    redis.call('PEXPIRE', KEYS[1], math.max(LEASE_MILLIS, TOKEN_RETENTION_MILLIS), 'GT')
  else
    redis.call('HSET', KEYS[1], 'layout', '2', OWNER_TOKEN, value, 'count', PERMITS, 'fence', fenceText, 'next', leaseEnd)
    redis.call('PEXPIRE', KEYS[1], math.max(LEASE_MILLIS, TOKEN_RETENTION_MILLIS))
  end
  return fence
end
if WAITING == '1' and not s[3] then
  redis.call('HSET', KEYS[1], 'waiting', '1')
end
return -1 - math.max(0, (earliest or nowMillis) - nowMillis)
