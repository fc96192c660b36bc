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

-- The group's next term (DESIGN §3), stored in its counter: max(counter + 1, TIME in microseconds). The clock part
-- keeps terms above every term issued before even when the counter is missing (a new group, a Redis that lost its
-- data) or OLDER than the last term issued (restored from an RDB snapshot, an AOF that lost its last second, a
-- replica promoted before it caught up): a term issued at store time t is at most t in microseconds while the group
-- averages under one acquisition per microsecond, so a later clock reading is above it unless the clock stepped back.
-- Compared and kept as decimal text, exact at any size.
local function next_term(counter_key, now)
  local counter = redis.call('GET', counter_key)
  if counter and not decimal_below(counter, now.micros) then
    redis.call('INCR', counter_key)
    return redis.call('GET', counter_key)
  end
  redis.call('SET', counter_key, now.micros)
  return now.micros
end

-- The group's lease if it is live, else nil. A lease is live iff its master key exists and, when it is bound to a
-- session (the group's master_session key names one), that session's key exists: a lease with a TTL of its own
-- expires with its keys (PX), a bound one has no TTL and ends with its session. sessions is the prefix that makes a
-- session id the name of the session's key as this script may reach it (the session's own key on one server, its
-- copy in the group's slot on a cluster); the key is computed here because only the group's data says which session
-- holds the lease. A live lease is {owner = node id, session = id or nil, session_key = name or nil}.
local function live_lease(master, master_session, sessions)
  local owner = redis.call('GET', master)
  if not owner then
    return nil
  end
  local session = redis.call('GET', master_session)
  if not session then
    return {owner = owner}
  end
  local key = sessions .. session
  if redis.call('EXISTS', key) == 0 then
    return nil
  end
  return {owner = owner, session = session, session_key = key}
end

-- The node id holding the group's live lease, or false (a lease of an ended session is no lease), for the scripts
-- that derive a role from it.
local function lease_owner(master, master_session, sessions)
  local lease = live_lease(master, master_session, sessions)
  return lease and lease.owner or false
end

-- A live lease as read.lua and a denied acquire report it: {owner, term, remaining ms, session id or ''}. A bound
-- lease's remaining time is its session's.
local function lease_reply(lease, master, master_term)
  local remaining = redis.call('PTTL', lease.session_key or master)
  return {lease.owner, redis.call('GET', master_term) or '0', remaining, lease.session or ''}
end

-- Takes a group's lease for a candidate, of either kind (SessionStore rule 2): denied iff a live lease stands and
-- another node holds it; a grant issues a new term and writes the group's keys, with PX ttl and no session for a
-- lease with a TTL of its own (ttl set), without any TTL and naming the session for a bound one (session set).
-- keys: master, master_term, heartbeat, master_process, term counter, master_session.
-- Returns {1, term} when granted, {0, owner, term, remaining ms, session or ''} when denied.
local function acquire_lease(keys, candidate, process_json, channel, sessions, ttl, session)
  local lease = live_lease(keys[1], keys[6], sessions)
  if lease and lease.owner ~= candidate then
    local denied = lease_reply(lease, keys[1], keys[2])
    table.insert(denied, 1, 0)
    return denied
  end
  local now = store_time()
  local term = next_term(keys[5], now)
  local expiry = {}
  if ttl then
    expiry = {'PX', ttl}
  end
  -- A plain SET also drops the TTL a key had, so a bound lease replacing a TTL lease never expires by PX.
  redis.call('SET', keys[1], candidate, unpack(expiry))
  redis.call('SET', keys[2], term, unpack(expiry))
  redis.call('SET', keys[3], decimal(now.ms), unpack(expiry))
  local process = stamp_process(process_json, now.iso, now.iso, 'master') or process_json
  redis.call('SET', keys[4], process, unpack(expiry))
  if session then
    redis.call('SET', keys[6], session)
  else
    redis.call('DEL', keys[6])
  end
  notify(channel, 'acquired ' .. term .. ' ' .. candidate)
  return {1, term}
end

-- Whether the caller's session is alive as this slot sees it, for a call that needs it (acquire, join). Its key (a
-- hash: id = node id, node = node JSON, lastSeen) must exist: an ended session never comes back. On a cluster the
-- client sends, with its first such call in a slot, the fields and remaining time (copy_ttl ms) it read from the
-- session's own key just before; the copy is then created here on the caller's word that its session is alive,
-- which SessionStore allows. copy_ttl is '' otherwise.
local function session_here(key, copy_ttl, node_id, node, last_seen)
  if redis.call('EXISTS', key) == 1 then
    return true
  end
  if copy_ttl == '' then
    return false
  end
  redis.call('HSET', key, 'id', node_id, 'node', node, 'lastSeen', last_seen)
  redis.call('PEXPIRE', key, copy_ttl)
  return true
end
