-- Writes a fenced register iff the term is the newest the group issued and not older than the register's last
-- write, so a deposed leader is refused even before its successor writes.
-- KEYS: 1 term, 2 fenced register
-- ARGV: 1 term, 2 writer id, 3 value
-- Returns {1, term} if written, else {0, newest term known}.
local issued = redis.call('GET', KEYS[1])
local stored = redis.call('HGET', KEYS[2], 'term')
-- Terms compared as decimal text, not as Lua numbers (doubles), so every 64-bit term is exact. The register is
-- written in the same Redis as the counter, so a restored (older) state rolls both back together; acquire.lua then
-- issues the next term above both.
local newest = issued or '0'
if stored and decimal_below(newest, stored) then
  newest = stored
end
if not issued or ARGV[1] ~= issued or decimal_below(ARGV[1], newest) then
  return {0, newest}
end
redis.call('HSET', KEYS[2], 'term', ARGV[1], 'writer', ARGV[2], 'value', ARGV[3])
return {1, ARGV[1]}
