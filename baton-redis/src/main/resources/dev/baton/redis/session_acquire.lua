-- Takes a group's lease bound to a session (SessionStore#acquire): the same rule and terms as acquire.lua, but the
-- lease keys get no TTL and master_session names the session, so the lease lives exactly as long as the session key.
-- KEYS: 1 master, 2 master_term, 3 heartbeat, 4 master_process, 5 term, 6 master_session, 7 the caller's session key
--       as this slot reaches it
-- ARGV: 1 candidate id, 2 candidate process JSON, 3 notices channel, 4 session key prefix (live_lease), 5 session id,
--       6 copy ttl ms or '', 7 copy node id, 8 copy node JSON, 9 copy lastSeen (session_here)
-- Returns {-1} if the session has ended, else as acquire.lua.
replicate_effects()
if not session_here(KEYS[7], ARGV[6], ARGV[7], ARGV[8], ARGV[9]) then
  return {-1}
end
return acquire_lease(KEYS, ARGV[1], ARGV[2], ARGV[3], ARGV[4], nil, ARGV[5])
