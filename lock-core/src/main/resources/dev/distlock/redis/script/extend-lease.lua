-- extendLease(key, lease): lets key live at least lease ms from now, never shortening a longer expiry (a re-entry or
-- a renewal never cuts a longer fixed lease short). Redis 7's PEXPIRE GT does it in one command; before, PTTL first.
-- Under the ACL guard (Redis 7 only) it runs PEXPIRE alone.
local function extendLease(key, lease)
  if redis.REDIS_VERSION_NUM then
    redis.call('PEXPIRE', key, lease, 'GT')
  elseif redis.call('PTTL', key) < lease then
    redis.call('PEXPIRE', key, lease)
  end
end
