package dev.baton.server.chaos;

/** A chaos run could not do what it needs (no leader to start from, a server that would not start). */
final class ChaosException extends RuntimeException {

    ChaosException(String message) {
        super(message);
    }
}
