-- A waiting writer gives up: drops its intent, so that the readers it held back may go.
-- KEYS[1]  the write intent (see read-acquire.lua)
-- KEYS[2]  the writer's hash (see write-acquire.lua)
-- The arguments (see ScriptArgument):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  CHANNEL
-- ARGV[3]  PUBLISH_COMMAND  (see release.lua)
-- ARGV[4]  MESSAGE          the release message
-- Returns 1 when the intent was this writer's and is gone, 0 otherwise.
--#arguments
if redis.call('GET', KEYS[1]) ~= OWNER_TOKEN then
  return 0
end
redis.call('DEL', KEYS[1])
if not redis.call('HGET', KEYS[2], 'owner') then
  redis.call(PUBLISH_COMMAND, CHANNEL, MESSAGE)
end
return 1
