-- Reads the newest events of the group's log, decoded here so the client needs no JSON library.
-- KEYS: 1 events
-- ARGV: 1 limit (at least 1)
-- Returns one flat array per event, newest first: {id, node id, type, store time ms, key, value, key, value, ...}.
-- An entry that is not such JSON (not written by Baton) is skipped rather than failing the read.
local entries = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local events = {}
for _, entry in ipairs(entries) do
  local ok, e = pcall(cjson.decode, entry)
  if ok and type(e) == 'table' and type(e.id) == 'string' and type(e.node_id) == 'string'
      and type(e.event_type) == 'string' and type(e.timestamp_ms) == 'string' then
    local row = {e.id, e.node_id, e.event_type, e.timestamp_ms}
    if type(e.event_data) == 'table' then
      for k, v in pairs(e.event_data) do
        if type(v) == 'string' or type(v) == 'number' or type(v) == 'boolean' then
          row[#row + 1] = tostring(k)
          row[#row + 1] = tostring(v)
        end
      end
    end
    events[#events + 1] = row
  end
end
return events
