-- Lists a group's live session members (SessionStore#members) and drops the entries of ended sessions.
-- KEYS: 1 session_members, 2 master, 3 master_session
-- ARGV: 1 session key prefix (live_lease)
-- Returns {holder of the live lease or nil, then per live member: session id, node JSON, joined at, lastSeen}.
replicate_effects()
local reply = {lease_owner(KEYS[2], KEYS[3], ARGV[1])}
local joined = redis.call('HGETALL', KEYS[1])
local ended = {}
for i = 1, #joined, 2 do
  local fields = redis.call('HMGET', ARGV[1] .. joined[i], 'node', 'lastSeen')
  if fields[1] then
    reply[#reply + 1] = joined[i]
    reply[#reply + 1] = fields[1]
    reply[#reply + 1] = joined[i + 1]
    reply[#reply + 1] = fields[2] or joined[i + 1]
  else
    ended[#ended + 1] = joined[i]
  end
end
if #ended > 0 then
  call_chunked('HDEL', KEYS[1], ended)
end
return reply
