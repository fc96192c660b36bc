package dev.baton.core;

/** Life cycle of a member as seen by the group (seed 003's states; lease backends use ACTIVE and REMOVED). */
public enum MemberState {
    JOINING,
    ACTIVE,
    UNREACHABLE,
    LEAVING,
    REMOVED
}
