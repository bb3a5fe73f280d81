-- The ACL guard: a script checks the commands a path of it runs from its first write on (command and key, or the
-- publish command and channel) right before that first write, so that a grant revoked while the application runs
-- fails the whole script with NOPERM naming the command, never half-way: no lock key without an expiry, no release
-- that wrote but could not publish. Commands before the first write need no check: a refusal there changes nothing
-- (Redis's own error, which names no command; the start-up check, access-check.lua, names every one).
-- Arguments: command, key or channel, command, key or channel, ... Returns the error reply to return, or nil when all
-- are granted. redis.acl_check_cmd (Redis 7) runs inside the script: no round trip; before Redis 7 there is no check.
-- Called as 'refusedGrant and refusedGrant(...)': without the guard (acl-unchecked.lua) refusedGrant is false.
local function refusedGrant(...)
  if not redis.acl_check_cmd then
    return nil
  end
  local checks = {...}
  for i = 1, #checks, 2 do
    local command, target = checks[i], checks[i + 1]
    local publish = command == 'PUBLISH' or command == 'SPUBLISH'
    -- placeholder arguments that fit each command's arity without naming more keys: DEL key, EXISTS key (each of
    -- their arguments is a key), PUBLISH channel message, the others key and two more
    local granted
    if command == 'DEL' or command == 'EXISTS' then
      granted = redis.acl_check_cmd(command, target)
    elseif publish then
      granted = redis.acl_check_cmd(command, target, '')
    else
      granted = redis.acl_check_cmd(command, target, '0', '0')
    end
    if not granted then
      return redis.error_reply('NOPERM this user has no permissions to run the ' .. command .. ' command on the '
        .. (publish and 'release channel' or 'lock keys'))
    end
  end
  return nil
end
