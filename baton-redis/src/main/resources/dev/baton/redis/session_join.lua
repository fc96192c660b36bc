-- Adds a session to a group's members (SessionStore#join): the group's session_members hash maps session id to the
-- store time it joined. A new member is announced on the members channel as register.lua announces an entry.
-- KEYS: 1 session_members, 2 the session's key as this slot reaches it
-- ARGV: 1 session id, 2 members channel, 3 copy ttl ms or '', 4 copy node id, 5 copy node JSON, 6 copy lastSeen
--       (session_here)
-- Returns -1 if the session has ended, 1 if it joined, 0 if it was a member already.
replicate_effects()
if not session_here(KEYS[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]) then
  return -1
end
if redis.call('HSETNX', KEYS[1], ARGV[1], store_time().iso) == 0 then
  return 0
end
notify(ARGV[2], 'registered ' .. redis.call('HGET', KEYS[2], 'id'))
return 1
