-- Reads one process entry if it is alive, with the current master to derive its role.
-- KEYS: 1 processes, 2 processes:expiry, 3 master
-- ARGV: 1 process id
-- Returns {} if there is no live entry, else {json, master or nil}.
local now = store_time()
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry or not entry_live(KEYS[2], ARGV[1], now.ms) then
  return {}
end
return {entry, redis.call('GET', KEYS[3])}
