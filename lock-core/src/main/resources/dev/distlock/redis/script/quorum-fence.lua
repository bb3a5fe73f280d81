-- Quorum mode: raises a master's record of the highest fencing token a quorum holder of this lock was given, while the
-- caller's owner token still holds the lock on this master.
-- KEYS[1]  the lock (see acquire.lua): a hash, or a string in the single-hold layout (see single-hold.lua)
-- KEYS[2]  the quorum fence: the highest token raised on this master, kept for the token retention
-- The arguments (see ScriptArgument):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  RAISE_TO                the token to raise to
-- ARGV[3]  TOKEN_RETENTION_MILLIS  how long to keep the quorum fence
-- Returns -1 when this owner does not hold the lock here; otherwise the quorum fence before the call (0 when none).
-- Only when that was lower than RAISE_TO are the quorum fence and the lock's last token raised to it (the string
-- rewritten with its expiry, or the hash's 'fence').
--#arguments
--#include single-hold.lua (defines singleHold)
local value = redis.pcall('GET', KEYS[1])
local inString = type(value) == 'string'
local owner, holdId, fence, chain, waiting
if inString then
  owner, holdId, fence, chain, waiting = singleHold(value)
elseif value then
  owner = redis.call('HGET', KEYS[1], 'owner')
end
if owner ~= OWNER_TOKEN then
  return -1
end
local previous = tonumber(redis.call('GET', KEYS[2]) or 0)
local token = tonumber(RAISE_TO)
if previous < token then
  redis.call('SET', KEYS[2], RAISE_TO, 'PX', TOKEN_RETENTION_MILLIS)
  if inString and tonumber(fence) < token then
    redis.call('SET', KEYS[1], owner .. ' ' .. holdId .. ' ' .. RAISE_TO .. ' ' .. chain .. (waiting and ' w' or ''),
      'PX', redis.call('PTTL', KEYS[1]))
  elseif not inString and tonumber(redis.call('HGET', KEYS[1], 'fence') or 0) < token then
    redis.call('HSET', KEYS[1], 'fence', RAISE_TO)
  end
end
return previous
