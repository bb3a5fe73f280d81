-- What the release scripts share about an owner's hash (see add-hold.lua).
-- notOwnerReply: the reply to a release whose owner no longer holds the lock (state: HMGET of 'owner', 'released',
-- 'chain', 'fence'). A retried call whose first run freed the lock is recognised: this owner freed it last, or its
-- grant (fencing token) lies in the run of grants since 'chain', each ended by its owner's release, so this one was
-- released too (an expiry deletes the hash): 0. Else -1 when another owner holds it, -2 when nobody does.
local function notOwnerReply(state, ownerToken, token)
  if state[2] == ownerToken or (state[3] and tonumber(state[3]) <= token and token < tonumber(state[4])) then
    return 0
  end
  if state[1] then
    return -1
  end
  return -2
end
-- keepLongestLease: after one of several holds of hash ended (watchdogHold: the watchdog renewed it), when no open
-- hold is renewed the hash keeps the longest lease its open holds asked for, and no more. watchedField: the field that
-- counts the renewed holds (see add-hold.lua); dropAtZero: a lock hash's, deleted when it reaches 0. Returns that lease
-- end (Redis ms), or 0 when the expiry was left as it is. (A lock hash's owner-token field holds a count, never a
-- lease end: were a token all digits, it could only raise the longest lease to a time in 1970.)
local function keepLongestLease(hash, watchedField, watchdogHold, dropAtZero)
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
  if leaseEnd > 0 then
    redis.call('PEXPIREAT', hash, leaseEnd)
  end
  return leaseEnd
end
-- keepReleased(hash, ownerToken, delayMillis, retentionMillis, ...): marks the owner's last hold released with a
-- delay (see delayed-release.lua); the further arguments are field-value pairs to set as well.
local function keepReleased(hash, ownerToken, delayMillis, retentionMillis, ...)
  local now = redis.call('TIME')
  local untilMillis = now[1] * 1000 + math.floor(now[2] / 1000) + tonumber(delayMillis)
  redis.call('HSET', hash, 'owner', '(released)', 'released', ownerToken, 'until', string.format('%d', untilMillis),
    ...)
  redis.call('PEXPIRE', hash, math.max(tonumber(retentionMillis), tonumber(delayMillis)))
end
