-- Reads the current lease in one atomic step.
-- KEYS: 1 master, 2 master_term
-- Returns {} when no lease is held, else {owner, term, remaining ms}.
local owner = redis.call('GET', KEYS[1])
if not owner then
  return {}
end
return {owner, redis.call('GET', KEYS[2]) or '0', redis.call('PTTL', KEYS[1])}
