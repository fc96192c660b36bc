-- Removes a session from a group's members (SessionStore#leave) and announces it if the session was alive.
-- KEYS: 1 session_members, 2 the session's key as this slot reaches it
-- ARGV: 1 session id, 2 members channel
-- Returns 1 if a live member left, else 0.
replicate_effects()
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then
  return 0
end
local node_id = redis.call('HGET', KEYS[2], 'id')
if not node_id then
  return 0
end
notify(ARGV[2], 'unregistered ' .. node_id)
return 1
