-- Renews a live process entry: its expiry, lastSeen and role. One round trip per heartbeat.
-- KEYS: 1 processes, 2 processes:expiry, 3 master, 4 master_session
-- ARGV: 1 process id, 2 ttl ms, 3 session key prefix (live_lease)
-- Returns 1 if renewed, 0 if there is no live entry.
replicate_effects()
local now = store_time()
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if not existing or not entry_live(KEYS[2], ARGV[1], now.ms) then
  return 0
end
local ok, old = pcall(cjson.decode, existing)
if ok and type(old) == 'table' then
  local role = lease_owner(KEYS[3], KEYS[4], ARGV[3]) == ARGV[1] and 'master' or 'slave'
  local registered_at = type(old.registeredAt) == 'string' and old.registeredAt or now.iso
  redis.call('HSET', KEYS[1], ARGV[1], stamp_process(existing, registered_at, now.iso, role))
end
redis.call('ZADD', KEYS[2], now.ms + tonumber(ARGV[2]), ARGV[1])
return 1
