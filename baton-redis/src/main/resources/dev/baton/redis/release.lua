-- Gives a lease up iff the caller holds it under its term, and tells the watchers.
-- KEYS: 1 master, 2 master_term, 3 heartbeat, 4 master_process
-- ARGV: 1 node id, 2 term, 3 notices channel
-- Returns 1 if released, else 0.
if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('GET', KEYS[2]) ~= ARGV[2] then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
notify(ARGV[3], 'released ' .. ARGV[2] .. ' ' .. ARGV[1])
return 1
