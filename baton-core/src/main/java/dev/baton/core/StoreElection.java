package dev.baton.core;

import dev.baton.core.fencing.FencedRegister;

/**
 * An election on a shared store (Redis, PostgreSQL, the in-memory store), as {@link Baton#election} builds it. The
 * store gives it two things the serverless backends cannot offer: registers that the store itself fences by term,
 * and a process registry any process can be written to.
 */
public interface StoreElection extends Election {

    /**
     * A register in the store that only accepts writes from this group's newest term. On a backend without a store,
     * fence writes with {@link Leadership#term()} in the resource itself ({@link dev.baton.core.fencing.Fence} for a
     * resource in one process).
     */
    FencedRegister fencedRegister(String name);

    /** The group's process registry in the store. */
    @Override
    Registry membership();
}
