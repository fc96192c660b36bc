-- Deletes expired process entries (score at or before now) and returns their ids.
-- KEYS: 1 processes, 2 processes:expiry
replicate_effects()
local now = store_time()
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', decimal(now.ms))
if #expired > 0 then
  call_chunked('HDEL', KEYS[1], expired)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', decimal(now.ms))
end
return expired
