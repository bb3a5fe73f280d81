package dev.distlock.internal;

import java.util.concurrent.CompletionException;

/** What the engine's future callbacks share. */
public final class Futures {

    private Futures() {
    }

    /** The failure a dependent stage saw, without its {@link CompletionException} wrapper. */
    public static Throwable unwrap(Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }
}
