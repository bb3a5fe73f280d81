-- wrongTypeAsNil(reply): a renewal's redis.pcall reply, or nil for a WRONGTYPE error: a lock's key overwritten with
-- another type behind its back is a lock not held, and its error must not fail the renewal of the batch's other
-- locks. Any other error (an ACL refusal) is raised, as redis.call raises it.
local function wrongTypeAsNil(reply)
  if type(reply) == 'table' and reply.err then
    if string.find(reply.err, '^WRONGTYPE') then
      return nil
    end
    error(reply)
  end
  return reply
end
