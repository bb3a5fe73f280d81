--#include extend-lease.lua (defines extendLease)
-- A semaphore's permits in use (sem-acquire.lua, which includes acl-guard.lua first; sem-release.lua uses keepUntil):
-- its leases (a sorted set of holder tokens by the end of each holder's lease, Redis ms) and its permits (a hash:
-- holder token -> permits it holds, 'count' = their sum, 'waiting' = a waiting caller was refused since the last
-- release message). Both keys always get the same expiry, at least the latest lease end; a holder is in both or in
-- neither. A grant reads 'count' (HMGET with what else it needs) and, only when that count would refuse it, calls
-- countLive(leases, permits, count, nowMillis): it frees the permits of holders whose lease ran out (a holder that died
-- frees its permits at its lease end, never later: no grant is refused for them) and returns the live count and the
-- earliest live lease end (nil when none is left). The earliest lease tells in one command whether any ran out: only
-- then are they looked up and dropped, and the count written back. Until then they stay counted, as a holder is until
-- its lease end; at most the limit's worth, since a full count looks. The count is kept from the permits of holders
-- only, so it never drifts below zero or above what they hold. Those writes leave the count consistent on their own,
-- so the ACL guard (acl-guard.lua) checks them apart, right before: countRefused.
local function countRefused(leases, permits)
  return refusedGrant and refusedGrant('HGET', permits, 'HDEL', permits, 'ZREM', leases, 'ZRANGE', leases,
    'EXISTS', permits, 'HSET', permits)
end
local function countLive(leases, permits, count, nowMillis)
  local earliest = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')[2]
  if earliest and tonumber(earliest) <= nowMillis then
    for _, gone in ipairs(redis.call('ZRANGEBYSCORE', leases, '-inf', nowMillis)) do
      count = count - tonumber(redis.call('HGET', permits, gone) or 0)
      redis.call('HDEL', permits, gone)
      redis.call('ZREM', leases, gone)
    end
    earliest = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')[2]
    if redis.call('EXISTS', permits) == 1 then
      redis.call('HSET', permits, 'count', earliest and math.max(0, count) or 0)
    end
  end
  if count < 0 or not earliest then
    count = 0 -- no live holder: nothing is counted, whatever a stray count says
  end
  return count, tonumber(earliest)
end
-- keepUntil(leases, permits, ms): both keys live at least ms more (never shortened). Called only while a holder is in
-- them, so both have an expiry (every script that creates them sets one at once): on Redis 7, PEXPIRE GT alone, which
-- leaves an expiry as late as this one already (not extendLease's NX, a second command whenever two grants share a ms).
local function keepUntil(leases, permits, ms)
  if redis.REDIS_VERSION_NUM then
    redis.call('PEXPIRE', leases, ms, 'GT')
    redis.call('PEXPIRE', permits, ms, 'GT')
  else
    extendLease(leases, ms)
    extendLease(permits, ms)
  end
end
