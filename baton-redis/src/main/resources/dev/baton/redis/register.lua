-- Adds or replaces a process entry, alive for ttl by the store's clock. A live entry keeps its registeredAt.
-- KEYS: 1 processes, 2 processes:expiry, 3 master, 4 master_session
-- ARGV: 1 process id, 2 ttl ms, 3 process JSON, 4 members channel, 5 session key prefix (live_lease)
-- Returns 1 if the entry is new (a notice was published), 0 if it replaced a live one.
replicate_effects()
local now = store_time()
local existing = redis.call('HGET', KEYS[1], ARGV[1])
local live = existing and entry_live(KEYS[2], ARGV[1], now.ms)

local registered_at = now.iso
if live then
  local ok, old = pcall(cjson.decode, existing)
  if ok and type(old) == 'table' and type(old.registeredAt) == 'string' then
    registered_at = old.registeredAt
  end
end
local role = lease_owner(KEYS[3], KEYS[4], ARGV[5]) == ARGV[1] and 'master' or 'slave'
local entry = stamp_process(ARGV[3], registered_at, now.iso, role)
if not entry then
  return redis.error_reply('process JSON for ' .. ARGV[1] .. ' is not an object')
end

redis.call('HSET', KEYS[1], ARGV[1], entry)
redis.call('ZADD', KEYS[2], now.ms + tonumber(ARGV[2]), ARGV[1])
if live then
  return 0
end
notify(ARGV[4], 'registered ' .. ARGV[1])
return 1
