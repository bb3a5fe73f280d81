-- Quorum mode: raises a master's record of the highest fencing token a quorum holder of this lock was given, while the
-- caller's owner token still holds the lock on this master.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the quorum fence: the highest token raised on this master, kept for the token retention
-- ARGV[1]  owner token
-- ARGV[2]  the token to raise to
-- ARGV[3]  how long to keep the quorum fence, in milliseconds
-- Returns -1 when this owner does not hold the lock here; otherwise the quorum fence before the call (0 when none).
-- Only when that was lower than ARGV[2] are the quorum fence and the lock hash's last token raised to ARGV[2].
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return -1
end
local previous = tonumber(redis.call('GET', KEYS[2]) or 0)
local token = tonumber(ARGV[2])
if previous < token then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  if tonumber(redis.call('HGET', KEYS[1], 'fence') or 0) < token then
    redis.call('HSET', KEYS[1], 'fence', ARGV[2])
  end
end
return previous
