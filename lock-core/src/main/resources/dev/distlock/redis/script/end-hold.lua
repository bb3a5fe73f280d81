-- What the release scripts share about an owner's hash (see add-hold.lua).
--#include freed-mark.lua (defines freedMark, freedBefore)
--#include lease-end.lua (defines endsFrom)
-- The freed mark (see freed-mark.lua) names the very acquisitions whose release ended a hold, never a time or a token
-- another grant may share after a failover.
-- notOwnerReply: the reply to a release whose owner no longer holds the lock (state: HMGET of 'owner', 'released',
-- 'chain', 'fence'; mark: the freed mark's key, holdId the releasing acquisition's). A retried call whose first run
-- freed the lock is recognised: its grant (fencing token) lies in the run of grants since 'chain', each ended by its
-- owner's release (an expiry deletes the hash, 'chain' with it), before the run's last grant ('fence'), or is that
-- last grant while nobody holds the lock (only the owner's release removes an owner field); or a delayed release
-- marked this owner 'released' (see delayed-release.lua); or the freed mark names this acquisition: 0. Else -1 when
-- another owner holds it, -2 when nobody does: the lease was lost, whatever the holder's clock says.
local function notOwnerReply(state, ownerToken, token, mark, holdId)
  local chain, fence = tonumber(state[3]), tonumber(state[4])
  if state[2] == ownerToken or (chain and chain <= token and (token < fence or (not state[1] and token == fence)))
      or freedBefore(mark, ownerToken, holdId) then
    return 0
  end
  if state[1] then
    return -1
  end
  return -2
end
-- keepLongestLease: after one of several holds of hash ended (watchdogHold: the watchdog renewed it), when no open
-- hold is renewed the hash keeps the longest lease its open holds asked for, and no more. watchedField: the field that
-- counts the renewed holds (see add-hold.lua); dropAtZero: a lock hash's, deleted when it reaches 0; keepHash: the
-- hash's expiry is not the lease (a reader's, whose lease is its score: see read-release.lua), left as it is. Returns
-- that lease end (Redis ms), or 0 when the expiry was left as it is. (A lock hash's owner-token field holds a count,
-- never a lease end: were a token all digits, it could only raise the longest lease to a time in 1970.)
local function keepLongestLease(hash, watchedField, watchdogHold, dropAtZero, keepHash)
  local watched
  if watchdogHold then
    watched = redis.call('HINCRBY', hash, watchedField, '-1')
    if watched == 0 and dropAtZero then
      redis.call('HDEL', hash, watchedField)
    end
  else
    watched = tonumber(redis.call('HGET', hash, watchedField) or 0)
  end
  if watched ~= 0 then
    return 0
  end
  local fields, leaseEnd = redis.call('HGETALL', hash), 0
  for i = 1, #fields, 2 do
    if string.match(fields[i], '^%d+$') then
      leaseEnd = math.max(leaseEnd, tonumber(fields[i + 1]) or 0)
    end
  end
  if leaseEnd > 0 and not keepHash then
    redis.call('PEXPIREAT', hash, leaseEnd)
  end
  return leaseEnd
end
-- keepReleased(hash, mark, freed, ownerToken, delayMillis, retentionMillis, ...): marks the owner's last hold
-- released with a delay (see delayed-release.lua), and writes the freed mark's new value freed (see freedMark) for as
-- long as the hash may last; the further arguments are field-value pairs to set as well. The caller has run the ACL
-- guard on SET of the mark.
local function keepReleased(hash, mark, freed, ownerToken, delayMillis, retentionMillis, ...)
  redis.call('SET', mark, freed, 'PX', math.max(tonumber(retentionMillis), tonumber(delayMillis)))
  local untilMillis = endsFrom(redis.call('TIME')) + tonumber(delayMillis)
  redis.call('HSET', hash, 'owner', '(released)', 'released', ownerToken, 'until', string.format('%d', untilMillis),
    ...)
  redis.call('PEXPIRE', hash, math.max(tonumber(retentionMillis), tonumber(delayMillis)))
end
