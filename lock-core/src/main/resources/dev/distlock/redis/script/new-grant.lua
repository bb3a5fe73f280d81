-- A new grant of a lock hash (acquire.lua's layout) to ownerToken, with its first hold. The fencing token is
-- max(last token + 1, the Redis clock in microseconds) (lastFence, nil when none is kept), so that it keeps increasing
-- after the hash expired or was lost in a restart; only a watched grant given no clock reading takes the last token
-- + 1 (a run of grants from a clock reading adds one per grant, so it never overtakes the clock). now: a TIME reply, or nil to read the clock only when needed (no last
-- token, or a fixed lease). chain: the hash's 'chain' (see acquire.lua), or any value when the hash keeps one; nil when
-- this grant starts a run.
-- leaseMillis: the lease argument's text. The owner token names the field that counts the holds the watchdog renews,
-- set only for a watched hold (see add-hold.lua). The caller has run the ACL guard on HSET and PEXPIRE. Returns the
-- fencing token as text, then as a number (for a script's reply: tonumber would parse the text anew).
local function grantAnew(hash, ownerToken, holdId, leaseMillis, watched, lastFence, chain, now)
  local token
  if lastFence and watched and not now then
    token = tonumber(lastFence) + 1
  else
    now = now or redis.call('TIME')
    token = math.max(tonumber(lastFence or 0) + 1, now[1] * 1000000 + now[2])
  end
  local fence = string.format('%d', token)
  local holdLease = watched and 'w'
    or string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + tonumber(leaseMillis))
  -- the run's first token stays in 'chain' as it is: written only when this grant starts a run
  if watched and chain then
    redis.call('HSET', hash, 'owner', ownerToken, 'holds', '1', ownerToken, '1', holdId, holdLease, 'fence', fence)
  elseif watched then
    redis.call('HSET', hash, 'owner', ownerToken, 'holds', '1', ownerToken, '1', holdId, holdLease, 'fence', fence,
      'chain', fence)
  elseif chain then
    redis.call('HSET', hash, 'owner', ownerToken, 'holds', '1', holdId, holdLease, 'fence', fence)
  else
    redis.call('HSET', hash, 'owner', ownerToken, 'holds', '1', holdId, holdLease, 'fence', fence, 'chain', fence)
  end
  redis.call('PEXPIRE', hash, leaseMillis)
  return fence, token
end
