-- Extends one session key (the session's own, or a copy of it in a group's slot on a cluster) and stamps lastSeen.
-- A key that is gone stays gone: an ended session never comes back.
-- KEYS: 1 session key
-- ARGV: 1 ttl ms
-- Returns 1 if extended, 0 if the key is gone.
replicate_effects()
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], 'lastSeen', store_time().iso)
return 1
