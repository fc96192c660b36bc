-- Reads one process entry if it is alive, with the holder of the live lease to derive its role.
-- KEYS: 1 processes, 2 processes:expiry, 3 master, 4 master_session
-- ARGV: 1 process id, 2 session key prefix (live_lease)
-- Returns {} if there is no live entry, else {json, lease holder or nil}.
local now = store_time()
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry or not entry_live(KEYS[2], ARGV[1], now.ms) then
  return {}
end
return {entry, lease_owner(KEYS[3], KEYS[4], ARGV[2])}
