--#include extend-lease.lua (defines extendLease)
-- A semaphore's permits in use (sem-acquire.lua, sem-release.lua, which include acl-guard.lua first): its leases (a
-- sorted set of holder tokens by the end of each holder's lease, Redis ms) and its permits (a hash: holder token ->
-- permits it holds, 'count' = their sum, 'waiting' = a waiting caller was refused since the last release message). Both
-- keys always get the same expiry, at least the latest lease end. permitsInUse(leases, permits, nowMillis) first frees
-- the permits of holders whose lease ran out (a holder that died frees its permits at its lease end, never later), then
-- returns the count; or nil and the found layout when the permits hash holds a later layout's 'layout' field (see
-- layout.lua), having changed nothing. The count is kept from the permits of live holders only, so it can never drift below zero or above
-- what they hold. Its writes leave the count consistent on their own, so the ACL guard (acl-guard.lua) checks them
-- apart, right before: countRefused.
local function countRefused(leases, permits)
  return refusedGrant and refusedGrant('HGET', permits, 'HDEL', permits, 'ZREM', leases, 'ZCARD', leases,
    'EXISTS', permits, 'HSET', permits)
end
local function permitsInUse(leases, permits, nowMillis)
  local state = redis.call('HMGET', permits, 'count', 'layout')
  if state[2] then
    return nil, state[2]
  end
  local count = tonumber(state[1] or 0)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', leases, '-inf', nowMillis)) do
    count = count - tonumber(redis.call('HGET', permits, gone) or 0)
    redis.call('HDEL', permits, gone)
    redis.call('ZREM', leases, gone)
  end
  if count < 0 or redis.call('ZCARD', leases) == 0 then
    count = 0
  end
  if redis.call('EXISTS', permits) == 1 then
    redis.call('HSET', permits, 'count', count)
  end
  return count
end
-- keepUntil(leases, permits, ms): both keys live at least ms more (never shortened).
local function keepUntil(leases, permits, ms)
  extendLease(leases, ms)
  extendLease(permits, ms)
end
