-- Gives a live lease up iff the caller holds it under its term, and tells the watchers. The caller is named by node
-- id (LeaseStore#release, either kind of lease) or by session id (SessionStore#release, a lease bound to it).
-- KEYS: 1 master, 2 master_term, 3 heartbeat, 4 master_process, 5 master_session
-- ARGV: 1 node id or session id, 2 term, 3 notices channel, 4 session key prefix (live_lease), 5 'node' or 'session'
-- Returns 1 if released, else 0.
replicate_effects()
local lease = live_lease(KEYS[1], KEYS[5], ARGV[4])
if not lease or redis.call('GET', KEYS[2]) ~= ARGV[2] then
  return 0
end
local holder = lease.owner
if ARGV[5] == 'session' then
  holder = lease.session
end
if holder ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
notify(ARGV[3], 'released ' .. ARGV[2] .. ' ' .. lease.owner)
return 1
