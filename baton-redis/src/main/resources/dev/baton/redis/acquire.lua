-- Takes a group's lease (DESIGN §3): succeeds iff no lease exists or the candidate already holds it, and always
-- issues a new term.
-- KEYS: 1 master, 2 master_term, 3 heartbeat, 4 master_process, 5 term
-- ARGV: 1 candidate id, 2 ttl ms, 3 candidate process JSON, 4 notices channel
-- Returns {1, term, ttl ms} when granted, {0, owner, term, remaining ms} when denied.
replicate_effects()
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then
  return {0, owner, redis.call('GET', KEYS[2]) or '0', redis.call('PTTL', KEYS[1])}
end

local now = store_time()
-- term = max(counter + 1, TIME in microseconds). The clock part keeps terms above every term issued before even when
-- the counter is missing (a new group, a Redis that lost its data) or OLDER than the last term issued (restored from
-- an RDB snapshot, an AOF that lost its last second, a replica promoted before it caught up): a term issued at store
-- time t is at most t in microseconds while the group averages under one acquisition per microsecond, so a later
-- clock reading is above it unless the clock stepped back. Compared and kept as decimal text, exact at any size.
local counter = redis.call('GET', KEYS[5])
local term
if counter and not decimal_below(counter, now.micros) then
  redis.call('INCR', KEYS[5])
  term = redis.call('GET', KEYS[5])
else
  term = now.micros
  redis.call('SET', KEYS[5], term)
end

local ttl = ARGV[2]
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('SET', KEYS[2], term, 'PX', ttl)
redis.call('SET', KEYS[3], decimal(now.ms), 'PX', ttl)
local process = stamp_process(ARGV[3], now.iso, now.iso, 'master') or ARGV[3]
redis.call('SET', KEYS[4], process, 'PX', ttl)
notify(ARGV[4], 'acquired ' .. term .. ' ' .. ARGV[1])
return {1, term, tonumber(ttl)}
