package dev.distlock.redis;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockOptions;

/**
 * What {@link LocalQueueModelCheckTest}'s scenarios are built from: an engine on {@link InMemoryLockRedis}, warmed up
 * outside the model checker, its two styles of caller (a blocking {@link Acquisition}, a callback {@link ModelCaller}),
 * the record of who held the lock when ({@link Holders}), and the threads the scenarios run on.
 */
final class ModelCheckSupport {

    static final String KEY = "k";

    /** How long a waiter waits; never reached, as Lincheck's clock stands still. */
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private ModelCheckSupport() {
    }

    /** A service's engine on {@code redis}, as the model check builds it, each script used once (see warmUp). */
    static LockEngine engine(InMemoryLockRedis redis) {
        LockEngine engine = newEngine(redis);
        // the instance record's first write (which fails on the stand-in), off the check
        engine.calls.ownerTokens().get();
        warmUp(engine, redis);
        return engine;
    }

    /** A service's engine on {@code redis}, as the model check builds it. */
    static LockEngine newEngine(InMemoryLockRedis redis) {
        return new LockEngine(RedisLockService.builder(redis)
            .waitStrategy(WaitStrategy.POLLING)
            .shardingProxy(true)
            .evictionPolicyCheck(EvictionPolicyCheck.OFF));
    }

    /**
     * One of each script call the scenarios make, outside the model checker: a grant, a re-entry, a hand-off, the
     * releases; so that what the engine does once per service (a script's first use) is done before the check.
     */
    private static void warmUp(LockEngine engine, InMemoryLockRedis redis) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // a real clock here: bounded, never hangs
        int handOffs = redis.handOffs;
        for (int holds = 1; holds <= 2; holds++) {
            Object owner = new Object();
            List<RedisLockHandle> handles = new ArrayList<>();
            for (int i = 0; i < holds; i++) {
                handles.add(callback(engine, owner));
            }
            // a blocking waiter is handed the first lock, a callback waiter the second
            Thread waiter = start((holds == 1) ? () -> block(engine, new Object()).release()
                    : () -> callback(engine, new Object()).release());
            while (queued(engine) < 1 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            handles.forEach(RedisLockHandle::release);
            try {
                waiter.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            catch (InterruptedException ex) {
                throw new AssertionError(ex);
            }
            expect(!waiter.isAlive(), "the waiter was handed the lock on the stand-in");
        }
        expect(redis.handOffs == handOffs + 2 && !redis.held(), "the engine runs on the stand-in");
        redis.reset();
    }

    /** The lock for a blocking call of {@code owner}: the service's blocking path, a thread parked between steps. */
    static @Nullable RedisLockHandle block(LockEngine engine, Object owner) {
        return new Acquisition(engine.calls, KEY, options(owner), KEY, true).run(System.nanoTime(), WAIT_NANOS);
    }

    /** The lock for a callback call of {@code owner}, which must be granted. */
    static RedisLockHandle callback(LockEngine engine, Object owner) {
        RedisLockHandle handle = new ModelCaller(engine, KEY, owner).run();
        expect(handle != null, "granted");
        return handle;
    }

    static LockOptions options(Object owner) {
        return LockOptions.defaults().withOwner(owner).withLeaseTime(Duration.ofSeconds(30));
    }

    /** What the scenario's callers did, in order, and the one-holder invariant. */
    static final class Holders {

        final List<String> order = new ArrayList<>();

        private final List<Object> holding = new ArrayList<>();

        /**
         * Takes the lock with {@code call} (null: it ended without), checks that {@code owner} is then the only owner
         * holding it, runs {@code inside}, releases.
         */
        void hold(String name, Object owner, Supplier<@Nullable RedisLockHandle> call, Runnable inside) {
            RedisLockHandle handle = call.get();
            if (handle == null) {
                note(name + " cancelled");
                return;
            }
            synchronized (this) {
                for (Object other : this.holding) {
                    expect(other == owner, name + " holds the lock while another owner holds it");
                }
                this.holding.add(owner);
                this.order.add(name);
            }
            inside.run();
            synchronized (this) {
                this.holding.remove(owner);
            }
            handle.release();
        }

        synchronized void note(String event) {
            this.order.add(event);
        }
    }

    /** Waits until {@code count} callers queue for the key (the scenario's order of arrival). */
    static void awaitQueued(LockEngine engine, int count) {
        while (queued(engine) < count) {
            Thread.onSpinWait();
        }
    }

    /** The callers queued for the key now: the queue's private deque, read under its lock. */
    private static int queued(LockEngine engine) {
        LocalQueue queue = engine.calls.queues().get(KEY);
        if (queue == null) {
            return 0;
        }
        try {
            Field turns = LocalQueue.class.getDeclaredField("turns");
            turns.setAccessible(true);
            synchronized (queue) {
                return ((Collection<?>) turns.get(queue)).size();
            }
        }
        catch (ReflectiveOperationException ex) {
            throw new AssertionError(ex);
        }
    }

    static Thread start(Runnable caller) {
        Thread thread = new Thread(caller);
        thread.start();
        return thread;
    }

    static void joinAll(Collection<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join();
            }
            catch (InterruptedException ex) {
                throw new AssertionError(ex);
            }
        }
    }

    static void expect(boolean holds, String what) {
        if (!holds) {
            throw new AssertionError(what);
        }
    }
}
