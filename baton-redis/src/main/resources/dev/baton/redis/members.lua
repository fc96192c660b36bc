-- The lease holder and the expired ids of a group's registry, for a listing. The client sends HGETALL of the
-- processes hash just before this script on the same connection, rather than reading the hash here: passing 10,000
-- entries through Lua roughly doubles the cost of a listing. Ids expired by the time this runs are dropped from
-- what HGETALL returned, so the listing never contains an entry that expired before it completed.
-- KEYS: 1 processes:expiry, 2 master, 3 master_session
-- ARGV: 1 session key prefix (live_lease)
-- Returns {holder of the live lease or nil, {expired ids...}}.
local now = store_time()
return {lease_owner(KEYS[2], KEYS[3], ARGV[1]), redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', decimal(now.ms))}
