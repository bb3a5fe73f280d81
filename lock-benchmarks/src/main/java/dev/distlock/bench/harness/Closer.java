package dev.distlock.bench.harness;

import java.util.ArrayDeque;
import java.util.Deque;

/** Closes what a scenario opened, last opened first, even when one close fails. */
public final class Closer implements AutoCloseable {

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    public <T extends AutoCloseable> T add(T resource) {
        this.resources.push(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        while (!this.resources.isEmpty()) {
            try {
                this.resources.pop().close();
            }
            catch (Exception ex) {
                if (failure == null) {
                    failure = ex;
                }
                else {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
