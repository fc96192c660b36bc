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
-- A missing counter means a new group or a Redis that lost its data: restart above every term issued before by
-- seeding from the clock in microseconds (safe while the group averages under one acquisition per microsecond).
if redis.call('EXISTS', KEYS[5]) == 0 then
  redis.call('SET', KEYS[5], now.micros)
end
local term = decimal(redis.call('INCR', KEYS[5]))

local ttl = ARGV[2]
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('SET', KEYS[2], term, 'PX', ttl)
redis.call('SET', KEYS[3], decimal(now.ms), 'PX', ttl)
local process = stamp_process(ARGV[3], now.iso, now.iso, 'master') or ARGV[3]
redis.call('SET', KEYS[4], process, 'PX', ttl)
redis.call('PUBLISH', ARGV[4], 'acquired ' .. term .. ' ' .. ARGV[1])
return {1, term, tonumber(ttl)}
