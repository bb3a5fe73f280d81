package dev.distlock.redis;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;


/**
 * The local queue, hand-off and waiting state of lock-core (LocalQueues, LocalQueue, QueueTurn, WaitingCall, HandOffs,
 * Releases, LockRequest's grant) model-checked with Lincheck's model checker ({@code Lincheck.runConcurrentTest}):
 * each scenario runs on the real engine, its callers on threads of their own, with Redis behind
 * {@link InMemoryLockRedis}, under {@link #INVOCATIONS} interleavings, each checked against what a local queue
 * promises:
 * <ul>
 * <li>one holder at a time (calls of one owner re-enter and may hold together, others never);</li>
 * <li>FIFO among the waiters of a key: a release hands the lock to the waiter queued first;</li>
 * <li>no lost wake-up: every waiter ends; Lincheck models {@code System.nanoTime()} as a constant, so no wait times out
 * and no timed pause stands in for a missed wake-up: a waiter nobody wakes spins, which Lincheck reports as a hang;</li>
 * <li>re-entry of the same owner: a queued call of the owner that is granted the lock enters while it holds;</li>
 * <li>a cancelled waiter is gone: the waiter behind it is served, and a lock handed to it meanwhile is passed on.</li>
 * </ul>
 * The callers are callback callers ({@link ModelCaller}, driven as AsyncAcquisition drives its WaitingCall), not
 * AsyncAcquisition itself (its script calls need Lettuce's asynchronous connection) nor the blocking Acquisition (its
 * timed parks, which Lincheck returns from at once, turn every wait into a busy loop too slow to explore). Not covered:
 * blocking callers, {@code close()}, Redis failures.
 */
class LocalQueueModelCheckTest {

    /** Interleavings explored per scenario (-Ddistlock.modelcheck.invocations=N for more, by hand). */
    private static final int INVOCATIONS = Integer.getInteger("distlock.modelcheck.invocations", 3);

    private static final String KEY = "k";

    private InMemoryLockRedis redis;

    private LockEngine engine;

    @BeforeEach
    void startEngine() {
        this.redis = new InMemoryLockRedis();
        this.engine = new LockEngine(RedisLockService.builder(redis)
            .waitStrategy(WaitStrategy.POLLING)
            .shardingProxy(true)
            .evictionPolicyCheck(EvictionPolicyCheck.OFF));
        // the instance record's first write (which fails on the stand-in), off the check
        this.engine.calls.ownerTokens().get();
        warmUp();
    }

    /**
     * One of each script call the scenarios make, outside the model checker: a grant, a re-entry, a hand-off, the
     * releases; so that what the engine does once per service (a script's first use) is done before the check.
     */
    private void warmUp() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // a real clock here: bounded, never hangs
        for (int holds = 1; holds <= 2; holds++) {
            Object owner = new Object();
            List<RedisLockHandle> handles = new ArrayList<>();
            for (int i = 0; i < holds; i++) {
                handles.add(lock(owner));
            }
            Thread waiter = start(() -> lock(new Object()).release());
            while (queued() < 1 && System.nanoTime() - deadline < 0) {
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
        expect(this.redis.handOffs == 2 && !this.redis.held(), "the engine runs on the stand-in");
        this.redis.reset();
    }

    @AfterEach
    void closeEngine() {
        engine.close();
    }

    /** Two owners queue behind a third; its release hands the lock on in their order, one holder at a time. */
    @Test
    void handsOnInArrivalOrderOneHolderAtATime() {
        check(() -> {
            Holders holders = new Holders();
            RedisLockHandle first = lock(new Object());
            List<Thread> waiters = new ArrayList<>();
            for (String name : List.of("a", "b")) {
                Object owner = new Object();
                waiters.add(start(() -> holders.hold(name, owner, () -> { })));
                awaitQueued(waiters.size());
            }
            first.release();
            joinAll(waiters);
            expect(holders.order.equals(List.of("a", "b")), "FIFO: a, then b; was " + holders.order);
        });
    }

    /**
     * Two calls of one owner wait behind another owner: when the first is handed the lock, the second re-enters it
     * while the first holds it (each waits inside for the other, so a second call held back hangs the scenario).
     */
    @Test
    void queuedCallsOfTheGrantedOwnerReenter() {
        check(() -> {
            Holders holders = new Holders();
            Object owner = new Object();
            AtomicInteger inside = new AtomicInteger();
            RedisLockHandle first = lock(new Object());
            List<Thread> waiters = new ArrayList<>();
            for (String name : List.of("a1", "a2")) {
                waiters.add(start(() -> holders.hold(name, owner, () -> {
                    inside.incrementAndGet();
                    while (inside.get() < 2) {
                        Thread.onSpinWait(); // the owner's other call enters meanwhile
                    }
                })));
                awaitQueued(waiters.size());
            }
            first.release();
            joinAll(waiters);
            expect(holders.order.size() == 2, "both calls held: " + holders.order);
        });
    }

    /** A waiter cancelled while the lock is released: it never holds after, and the waiter behind it gets it. */
    @Test
    void cancelledWaiterIsGone() {
        check(() -> {
            Holders holders = new Holders();
            RedisLockHandle first = lock(new Object());
            ModelCaller cancelled = new ModelCaller(engine, KEY, new Object());
            Thread cancelledThread = start(() -> holders.hold("cancelled", cancelled, () -> { }));
            awaitQueued(1);
            Thread behind = start(() -> holders.hold("next", new ModelCaller(engine, KEY, new Object()), () -> { }));
            awaitQueued(2);
            cancelled.cancel();
            first.release();
            joinAll(List.of(cancelledThread, behind));
            expect(holders.order.contains("next"), "the waiter behind was served: " + holders.order);
        });
    }

    /** Runs a scenario under the model checker, each run on a fresh key state; then the queue must be gone. */
    private void check(Runnable scenario) {
        InMemoryLockRedis redis = this.redis; // locals, not static fields: Lincheck restores static state per run
        LockEngine engine = this.engine;
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            redis.reset();
            scenario.run();
            expect(engine.calls.queues().size() == 0, "every local queue closed");
            expect(!redis.held(), "the lock is free in Redis");
        });
    }

    /** What the scenario's callers did, in order, and the one-holder invariant. */
    private final class Holders {

        final List<String> order = new ArrayList<>();

        private final List<Object> holding = new ArrayList<>();

        void hold(String name, Object owner, Runnable inside) {
            hold(name, new ModelCaller(engine, KEY, owner), inside);
        }

        /** Takes the lock with {@code caller}, checks it is the only owner holding it, runs {@code inside}. */
        void hold(String name, ModelCaller caller, Runnable inside) {
            RedisLockHandle handle = caller.run();
            if (handle == null) {
                note(name + " cancelled");
                return;
            }
            Object owner = caller.holdKey.owner();
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

    private RedisLockHandle lock(Object owner) {
        RedisLockHandle handle = new ModelCaller(engine, KEY, owner).run();
        expect(handle != null, "granted");
        return handle;
    }

    /** Waits until {@code count} callers queue for the key (the scenario's order of arrival). */
    private void awaitQueued(int count) {
        while (queued() < count) {
            Thread.onSpinWait();
        }
    }

    /** The callers queued for the key now: the queue's private deque, read under its lock. */
    private int queued() {
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

    private static Thread start(Runnable caller) {
        Thread thread = new Thread(caller);
        thread.start();
        return thread;
    }

    private static void joinAll(Collection<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join();
            }
            catch (InterruptedException ex) {
                throw new AssertionError(ex);
            }
        }
    }

    private static void expect(boolean holds, String what) {
        if (!holds) {
            throw new AssertionError(what);
        }
    }
}
