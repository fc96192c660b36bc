-- Removes a process entry; tells the watchers if it was alive.
-- KEYS: 1 processes, 2 processes:expiry
-- ARGV: 1 process id, 2 members channel
-- Returns 1 if a live entry was removed, else 0.
replicate_effects()
local now = store_time()
local existed = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
local live = existed and entry_live(KEYS[2], ARGV[1], now.ms)
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if not live then
  return 0
end
notify(ARGV[2], 'unregistered ' .. ARGV[1])
return 1
