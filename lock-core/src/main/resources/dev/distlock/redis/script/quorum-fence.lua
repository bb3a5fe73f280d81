-- Quorum mode: raises a master's record of the highest fencing token a quorum holder of this lock was given, while the
-- caller's owner token still holds the lock on this master.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the quorum fence: the highest token raised on this master, kept for the token retention
-- The arguments (see ScriptArgument):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  RAISE_TO                the token to raise to
-- ARGV[3]  TOKEN_RETENTION_MILLIS  how long to keep the quorum fence
-- Returns -1 when this owner does not hold the lock here; otherwise the quorum fence before the call (0 when none).
-- Only when that was lower than RAISE_TO are the quorum fence and the lock hash's last token ('fence') raised to it.
--#arguments
if redis.call('HGET', KEYS[1], 'owner') ~= OWNER_TOKEN then
  return -1
end
local previous = tonumber(redis.call('GET', KEYS[2]) or 0)
local token = tonumber(RAISE_TO)
if previous < token then
  redis.call('SET', KEYS[2], RAISE_TO, 'PX', TOKEN_RETENTION_MILLIS)
  if tonumber(redis.call('HGET', KEYS[1], 'fence') or 0) < token then
    redis.call('HSET', KEYS[1], 'fence', RAISE_TO)
  end
end
return previous
