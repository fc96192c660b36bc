package dev.baton.core.store;

/**
 * A call named a session that has ended (expired by the store's clock, or closed): nothing was done. The caller
 * opens a new session; an ended one never comes back.
 */
public class SessionEndedException extends StoreException {

    private static final long serialVersionUID = 1L;

    public SessionEndedException(String session) {
        super("session " + session + " has ended");
    }
}
