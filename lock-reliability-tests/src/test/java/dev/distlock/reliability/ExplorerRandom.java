package dev.distlock.reliability;

import java.util.Random;

/**
 * A {@link Random} whose 48-bit state can be read and set, so that a worker's operation can be replayed from the
 * state it started in ({@link ExplorerSchedule}). It draws exactly what {@code new Random(seed)} draws: the same linear
 * congruential step in {@link #next}, through which every draw of {@link Random} goes.
 */
final class ExplorerRandom extends Random {

    private static final long MULTIPLIER = 0x5DEECE66DL;

    private static final long MASK = (1L << 48) - 1;

    private long state; // set by setSeed, which Random's constructor calls

    ExplorerRandom(long seed) {
        super(seed);
    }

    /** A generator in this raw state (as {@link #state()} returned it, not scrambled like a seed). */
    static ExplorerRandom ofState(long state) {
        ExplorerRandom random = new ExplorerRandom(0);
        random.state(state);
        return random;
    }

    @Override
    public synchronized void setSeed(long seed) {
        this.state = (seed ^ MULTIPLIER) & MASK;
    }

    synchronized long state() {
        return this.state;
    }

    synchronized void state(long state) {
        this.state = state & MASK;
    }

    @Override
    protected synchronized int next(int bits) {
        this.state = (this.state * MULTIPLIER + 0xBL) & MASK;
        return (int) (this.state >>> (48 - bits));
    }
}
