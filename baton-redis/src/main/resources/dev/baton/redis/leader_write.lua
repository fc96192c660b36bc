-- Writes a group's leader record (seed 004's GMLeader) as a compare-and-set on the term: stored iff there is no
-- record, or the stored term is lower, or it is the same term and the same leader (a refresh). The stored term never
-- goes down. Terms are compared as decimal text, not as Lua numbers, so every 64-bit term is exact.
-- KEYS: 1 leader record (hash: term, leader_id, process_id, address)
-- ARGV: 1 term, 2 leader id, 3 process id, 4 address (term and process id as decimal text without leading zeros)
-- Returns {1, term, leader id, process id, address} if written, else {0, <the stored record's four fields>}.
local function term_below(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local stored = redis.call('HMGET', KEYS[1], 'term', 'leader_id', 'process_id', 'address')
if stored[1] or stored[2] or stored[3] or stored[4] then
  if not (stored[1] and stored[2] and stored[3] and stored[4]) then
    return redis.error_reply('leader record ' .. KEYS[1] .. ' is incomplete')
  end
  local refresh = stored[1] == ARGV[1] and stored[2] == ARGV[2]
  if not refresh and not term_below(stored[1], ARGV[1]) then
    return {0, stored[1], stored[2], stored[3], stored[4]}
  end
end
redis.call('HSET', KEYS[1], 'term', ARGV[1], 'leader_id', ARGV[2], 'process_id', ARGV[3], 'address', ARGV[4])
return {1, ARGV[1], ARGV[2], ARGV[3], ARGV[4]}
