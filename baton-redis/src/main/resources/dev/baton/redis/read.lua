-- Reads the current lease in one atomic step; a lease bound to an ended session is none.
-- KEYS: 1 master, 2 master_term, 3 master_session
-- ARGV: 1 session key prefix (live_lease)
-- Returns {} when no live lease is held, else {owner, term, remaining ms, session id or ''}.
local lease = live_lease(KEYS[1], KEYS[3], ARGV[1])
if not lease then
  return {}
end
return lease_reply(lease, KEYS[1], KEYS[2])
