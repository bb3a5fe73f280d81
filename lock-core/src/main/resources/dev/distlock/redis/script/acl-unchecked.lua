-- The ACL guard left out (see acl-guard.lua): what the scripts include in its place for a Redis user whose ACL grants
-- every command, key and channel, so that no grant can refuse a write (decided at start-up, and undone by the first
-- NOPERM: dev.distlock.redis.script.AclGuard).
local function refusedGrant()
  return nil
end
