-- The ACL guard left out (see acl-guard.lua): what the scripts include in its place for a Redis user whose ACL grants
-- every command, key and channel, so that no grant can refuse a write (decided at start-up, and undone by the first
-- NOPERM: dev.distlock.redis.script.AclGuard). Not a function: every check is written
-- 'refusedGrant and refusedGrant(...)', so that without the guard a script neither defines it nor evaluates a check's
-- arguments.
local refusedGrant = false
