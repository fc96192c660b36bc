-- Takes a group's lease with a TTL of its own (DESIGN §3): succeeds iff no live lease exists (none, expired, or bound
-- to an ended session) or the candidate already holds it, and always issues a new term (next_term in lib.lua). A
-- grant drops any session binding: every lease key gets the TTL.
-- KEYS: 1 master, 2 master_term, 3 heartbeat, 4 master_process, 5 term, 6 master_session
-- ARGV: 1 candidate id, 2 ttl ms, 3 candidate process JSON, 4 notices channel, 5 session key prefix (live_lease)
-- Returns {1, term} when granted, {0, owner, term, remaining ms, session or ''} when denied.
replicate_effects()
return acquire_lease(KEYS, ARGV[1], ARGV[3], ARGV[4], ARGV[5], ARGV[2], nil)
