-- Opens a session (SessionStore#open): a hash of the owner's node id and node info JSON with lastSeen stamped by the
-- store, alive for ttl. The id is new (a random UUID), so the key cannot exist; refusing an existing one keeps an
-- id from ever being given out twice all the same.
-- KEYS: 1 session
-- ARGV: 1 node id, 2 node JSON, 3 ttl ms
-- Returns 1 if opened, 0 if the key existed.
replicate_effects()
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'node', ARGV[2], 'lastSeen', store_time().iso)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
