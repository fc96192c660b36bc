-- The lease holder and the expired ids of a group's registry, for a listing. The client sends HGETALL of the
-- processes hash just before this script on the same connection, rather than reading the hash here: passing 10,000
-- entries through Lua roughly doubles the cost of a listing. Ids expired by the time this runs are dropped from
-- what HGETALL returned, so the listing never contains an entry that expired before it completed.
-- KEYS: 1 processes:expiry, 2 master
-- Returns {master or nil, {expired ids...}}.
local now = store_time()
return {redis.call('GET', KEYS[2]), redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', decimal(now.ms))}
