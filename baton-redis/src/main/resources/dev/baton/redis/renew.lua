-- Extends a lease with a TTL of its own iff the caller still holds it under its term. A lease bound to a session is
-- never renewed here: it lives as long as its session, which SessionStore#keepAlive extends.
-- KEYS: 1 master, 2 master_term, 3 heartbeat, 4 master_process, 5 master_session
-- ARGV: 1 node id, 2 term, 3 ttl ms
-- Returns 1 if renewed, else 0.
replicate_effects()
if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('GET', KEYS[2]) ~= ARGV[2]
    or redis.call('EXISTS', KEYS[5]) == 1 then
  return 0
end
local now = store_time()
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[3], decimal(now.ms), 'PX', ARGV[3])
redis.call('PEXPIRE', KEYS[4], ARGV[3])
return 1
