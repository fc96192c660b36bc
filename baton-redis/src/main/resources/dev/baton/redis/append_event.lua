-- Appends one cluster event (seed 002's cluster_events row) to the group's log, newest first, and drops the oldest
-- beyond the retention. The entry is JSON with the seed's column names; ids and times are text so that cjson's
-- 14-digit number format cannot round them, and the time is kept both readable (timestamp) and exact (timestamp_ms).
-- KEYS: 1 events, 2 events:seq
-- ARGV: 1 node id, 2 event type, 3 retention, then data as key, value, key, value, ...
-- Returns the new event's id.
replicate_effects()
local now = store_time()
local id = redis.call('INCR', KEYS[2])
local data = {}
for i = 4, #ARGV, 2 do
  data[ARGV[i]] = ARGV[i + 1]
end
-- An empty table encodes as {} (an object), so data always reads back as a map.
local entry = cjson.encode({
  id = decimal(id),
  node_id = ARGV[1],
  event_type = ARGV[2],
  event_data = data,
  timestamp = now.iso,
  timestamp_ms = decimal(now.ms)
})
redis.call('LPUSH', KEYS[1], entry)
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[3]) - 1)
return id
