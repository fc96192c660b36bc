local NOTICE_COMMAND = 'PUBLISH'
-- The line above must stay first: on a Redis Cluster the loader turns it into SPUBLISH (LuaScript.sharded), so a
-- notice goes only to the nodes of its channel's shard, the group's own slot.
-- Helpers shared by every Baton script. The loader prepends this file to each script, because a script cannot
-- call another one. Everything here is local, as Redis forbids globals in scripts.

-- Sends a lease or member notice on the group's channel.
local function notify(channel, message)
  redis.call(NOTICE_COMMAND, channel, message)
end

-- Redis before 7.0 replicates a script by re-running it, which TIME would make non-deterministic; asking for effect
-- replication fixes that. Redis 7 always replicates effects and keeps the call as a no-op, so pcall covers both.
local function replicate_effects()
  pcall(redis.replicate_commands)
end

-- An ISO-8601 UTC timestamp with milliseconds (JavaScript's toISOString form, as seed 000 writes), computed from
-- Unix seconds with the days-to-civil-date algorithm (H. Hinnant), since Redis's Lua has no os.date.
local function iso8601(sec, usec)
  local days = math.floor(sec / 86400)
  local rem = sec - days * 86400
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local day = doy - math.floor((153 * mp + 2) / 5) + 1
  local month = mp < 10 and mp + 3 or mp - 9
  local year = yoe + era * 400 + (month <= 2 and 1 or 0)
  return string.format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', year, month, day,
    math.floor(rem / 3600), math.floor((rem % 3600) / 60), rem % 60, math.floor(usec / 1000))
end

-- The store's clock (DESIGN §3 rule 4): never a client's. Lua numbers are doubles, exact below 2^53, so
-- milliseconds are exact; microseconds are kept as text because tostring() would round them.
local function store_time()
  local t = redis.call('TIME')
  local sec = tonumber(t[1])
  local usec = tonumber(t[2])
  return {
    ms = sec * 1000 + math.floor(usec / 1000),
    micros = t[1] .. string.format('%06d', usec),
    iso = iso8601(sec, usec)
  }
end

-- A whole number as decimal text without exponent (tostring() switches to 1.7e+15 above 14 digits).
local function decimal(n)
  return string.format('%.0f', n)
end

-- Whether decimal text a is below decimal text b, exactly for any length (Lua numbers are doubles and would round
-- above 2^53). Both are canonical non-negative decimals, as INCR, TIME and Java's Long.toString write them; text that
-- is not (a sign, say) counts as below any canonical number of more digits.
local function decimal_below(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

-- Runs a variadic command over a long list in chunks: unpack() fails beyond a few thousand values.
local function call_chunked(command, key, items)
  for i = 1, #items, 1000 do
    redis.call(command, key, unpack(items, i, math.min(i + 999, #items)))
  end
end

-- A process entry with the store's timestamps and the role the current lease gives it. Returns nil for text that
-- is not a JSON object, so one bad entry never breaks a script.
local function stamp_process(json, registered_at, last_seen, role)
  local ok, node = pcall(cjson.decode, json)
  if not ok or type(node) ~= 'table' then
    return nil
  end
  node.registeredAt = registered_at
  node.lastSeen = last_seen
  node.role = role
  return cjson.encode(node)
end

-- Whether a registry entry is alive at now_ms. An entry without an expiry score was written by someone else (seed
-- 000 writes per-field TTLs itself) and is alive as long as it exists.
local function entry_live(expiry_key, id, now_ms)
  local score = redis.call('ZSCORE', expiry_key, id)
  return not score or tonumber(score) > now_ms
end
