package dev.distlock.bench.clients;

import dev.distlock.LockMode;

/** The kinds of distlock lock whose Redis cost the capacity scenario measures. */
public enum LockType {

    EXCLUSIVE("exclusive", LockMode.EXCLUSIVE, 1),

    READ("read", LockMode.READ, 1),

    WRITE("write", LockMode.WRITE, 1),

    FAIR("fair", LockMode.FAIR, 1),

    /** {@code acquireAll} of three exclusive locks, released together. */
    MULTI_KEY("multi-key (3)", LockMode.EXCLUSIVE, 3);

    private final String label;

    private final LockMode mode;

    private final int keys;

    LockType(String label, LockMode mode, int keys) {
        this.label = label;
        this.mode = mode;
        this.keys = keys;
    }

    public String label() {
        return this.label;
    }

    public LockMode mode() {
        return this.mode;
    }

    /** Keys one cycle locks. */
    public int keys() {
        return this.keys;
    }
}
