-- The live lease holder's process info (seed 000's master_process); a lease bound to an ended session is none.
-- KEYS: 1 master, 2 master_process, 3 master_session
-- ARGV: 1 session key prefix (live_lease)
-- Returns the process JSON, or nil when no live lease is held.
if not live_lease(KEYS[1], KEYS[3], ARGV[1]) then
  return false
end
return redis.call('GET', KEYS[2])
