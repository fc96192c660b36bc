-- Writes a fenced register iff the term is the newest the group issued and not older than the register's last
-- write, so a deposed leader is refused even before its successor writes.
-- KEYS: 1 term, 2 fenced register
-- ARGV: 1 term, 2 writer id, 3 value
-- Returns {1, term} if written, else {0, newest term known}.
local issued = redis.call('GET', KEYS[1])
local stored = redis.call('HGET', KEYS[2], 'term')
local term = tonumber(ARGV[1])
local newest = issued and tonumber(issued) or 0
if stored and tonumber(stored) > newest then
  newest = tonumber(stored)
end
if not issued or term ~= tonumber(issued) or term < newest then
  return {0, decimal(newest)}
end
redis.call('HSET', KEYS[2], 'term', ARGV[1], 'writer', ARGV[2], 'value', ARGV[3])
return {1, ARGV[1]}
