-- Reads a session's own key, for the client to copy it into a group's slot on a cluster (session_here in lib.lua).
-- KEYS: 1 session
-- Returns {} if the session has ended, else {remaining ms, node id, node JSON, lastSeen}.
local remaining = redis.call('PTTL', KEYS[1])
if remaining <= 0 then
  return {}
end
local fields = redis.call('HMGET', KEYS[1], 'id', 'node', 'lastSeen')
return {remaining, fields[1], fields[2], fields[3]}
