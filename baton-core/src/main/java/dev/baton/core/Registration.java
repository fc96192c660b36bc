package dev.baton.core;

/** A listener or subscription that can be removed. Closing twice does nothing. */
@FunctionalInterface
public interface Registration extends AutoCloseable {

    @Override
    void close();
}
