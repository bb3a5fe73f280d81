-- A release with a delay (release.lua, fair-release.lua with KEEP_HELD_MILLIS > 0) leaves the hash with owner
-- '(released)', a token no owner has, and 'until' = the end of the delay in Redis ms: held by nobody until then. The
-- hash itself lives on for the token retention, or the delay if longer, so that a retried release still finds its
-- 'released' mark after the delay (a hash that expired at the delay would report the lease lost).
-- heldFor(owner, untilMillis): how long a lock whose 'owner' field is owner stays held: 0 once a delayed release's
-- delay has ended (it may then be granted anew); nil for any other owner (held, or free when owner is nil).
local function heldFor(owner, untilMillis)
  if owner ~= '(released)' then
    return nil
  end
  local now = redis.call('TIME')
  return math.max(0, tonumber(untilMillis or 0) - (now[1] * 1000 + math.floor(now[2] / 1000)))
end
