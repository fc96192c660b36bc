package dev.baton.core.store;

/** A store call did not answer within its timeout. The call may still take effect on the store later. */
public final class StoreTimeoutException extends StoreException {

    private static final long serialVersionUID = 1L;

    public StoreTimeoutException(String message) {
        super(message);
    }
}
