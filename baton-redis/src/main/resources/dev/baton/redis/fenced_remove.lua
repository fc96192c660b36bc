-- Removes one entry of a fenced map iff the term is the newest the group issued; removing a missing entry is
-- accepted (idempotent). The same check as fenced_put.lua.
-- KEYS: 1 term, 2 fenced map
-- ARGV: 1 term, 2 entry key
-- Returns {1, term, 1 if the key existed before else 0} if applied, else {0, newest term or 0, 0}.
local issued = redis.call('GET', KEYS[1])
if not issued or issued ~= ARGV[1] then
  return {0, issued or 0, 0}
end
return {1, issued, redis.call('HDEL', KEYS[2], ARGV[2])}
