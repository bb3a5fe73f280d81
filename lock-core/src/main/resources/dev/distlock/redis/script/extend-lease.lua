-- extendLease(key, lease): lets key live at least lease ms from now, never shortening a longer expiry (a re-entry or
-- a renewal never cuts a longer fixed lease short). Redis 7: PEXPIRE GT, one command when the key already expires
-- (a renewal); GT treats a key with no expiry as never expiring and sets nothing, so a key just created (a first
-- reader's set, a fair waiter's queue) then gets its expiry from PEXPIRE NX. Before Redis 7, PTTL first.
-- Under the ACL guard (Redis 7 only) it runs PEXPIRE alone. lease: ms, as text (an argument's: Redis would format a
-- Lua number anew on every call) or a number.
-- Which of the two a Redis runs is chosen once per script call, not per key: a batch renewal (read-renew.lua,
-- sem-renew.lua; renew.lua before Redis 7) calls it for every key.
local extendLease
if redis.REDIS_VERSION_NUM then
  extendLease = function(key, lease)
    if redis.call('PEXPIRE', key, lease, 'GT') == 0 then
      redis.call('PEXPIRE', key, lease, 'NX')
    end
  end
else
  extendLease = function(key, lease)
    if redis.call('PTTL', key) < tonumber(lease) then
      redis.call('PEXPIRE', key, lease)
    end
  end
end
