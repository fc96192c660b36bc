-- Sets one entry of a fenced map iff the term is the newest the group issued (the term counter acquire.lua INCRs).
-- Unlike a register there is no per-entry term to compare: the counter alone decides, so a term never issued
-- (including 0, and any term of a group whose counter is missing) is refused.
-- KEYS: 1 term, 2 fenced map
-- ARGV: 1 term, 2 entry key, 3 encoded entry (term, writer, value)
-- Returns {1, term, 1 if the key existed before else 0} if written, else {0, newest term or 0, 0}.
local issued = redis.call('GET', KEYS[1])
-- Compared as text, not with tonumber(): exact for every 64-bit term, and INCR always stores canonical decimals.
if not issued or issued ~= ARGV[1] then
  return {0, issued or 0, 0}
end
local added = redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return {1, issued, added == 1 and 0 or 1}
