package dev.distlock.redis;

import static dev.distlock.redis.ModelCheckSupport.KEY;
import static dev.distlock.redis.ModelCheckSupport.awaitQueued;
import static dev.distlock.redis.ModelCheckSupport.block;
import static dev.distlock.redis.ModelCheckSupport.callback;
import static dev.distlock.redis.ModelCheckSupport.expect;
import static dev.distlock.redis.ModelCheckSupport.joinAll;
import static dev.distlock.redis.ModelCheckSupport.start;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.jetbrains.lincheck.Lincheck;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.redis.ModelCheckSupport.Holders;

/**
 * The local queue, hand-off and waiting state of lock-core (LocalQueues, LocalQueue, QueueTurn, WaitingCall, HandOffs,
 * Releases, LockRequest's grant) model-checked with Lincheck's model checker ({@code Lincheck.runConcurrentTest}):
 * each scenario runs on the real engine, its callers on threads of their own, with Redis behind
 * {@link InMemoryLockRedis}, under {@link #INVOCATIONS} interleavings, each checked against what a local queue
 * promises:
 * <ul>
 * <li>one holder at a time (calls of one owner re-enter and may hold together, others never);</li>
 * <li>FIFO among the waiters of a key: a release hands the lock to the waiter queued first;</li>
 * <li>no lost wake-up: every waiter ends. Lincheck models {@code System.nanoTime()} as a constant, so no wait times out
 * and no timed pause stands in for a missed wake-up: a callback waiter nobody wakes spins, a blocking one waits for
 * its release signal for ever (its parks return at once, as the model checker lets a park wake spuriously), which
 * Lincheck reports as a hang;</li>
 * <li>re-entry of the same owner: a queued call of the owner that is granted the lock enters while it holds;</li>
 * <li>a cancelled waiter is gone: the waiter behind it is served, and a lock handed to it meanwhile is passed on.</li>
 * </ul>
 * The callers are callback callers ({@link ModelCaller}, driven as AsyncAcquisition drives its WaitingCall;
 * AsyncAcquisition's script calls need Lettuce's asynchronous connection), alone and mixed on one key with blocking
 * ones ({@link Acquisition}, the service's blocking path, its thread parked between steps): a blocking holder handing
 * the lock to a blocking waiter, then to a callback one; a blocking call re-entering its owner's callback hold. Each
 * scenario costs a few seconds (the first more: Lincheck instruments the classes then). The service's close: its part
 * for waiting calls ({@link LockEngine#endWaits()}) while callers wait, with and without a release racing it; callback
 * callers register as AsyncAcquisition does, so that the close ends them as it ends its futures. Not covered: Redis
 * failures, and the rest of {@code close()}, stopping the service's threads: Lincheck 3.7 cannot follow it (on an
 * engine built before the run it fails taking and restoring its snapshot of the engine's thread pools; on one built
 * in the run the analysis aborts after about a minute), and the model has no timers for it to stop.
 */
class LocalQueueModelCheckTest {

    /** Interleavings explored per scenario (-Ddistlock.modelcheck.invocations=N for more, by hand). */
    private static final int INVOCATIONS = Integer.getInteger("distlock.modelcheck.invocations", 3);

    private InMemoryLockRedis redis;

    private LockEngine engine;

    @BeforeEach
    void startEngine() {
        this.redis = new InMemoryLockRedis();
        this.engine = ModelCheckSupport.engine(this.redis);
    }

    @AfterEach
    void closeEngine() {
        engine.close();
    }

    /** Two callback callers queue behind a third; its release hands the lock on in their order, one at a time. */
    @Test
    void handsOnInArrivalOrderOneHolderAtATime() {
        handsOnInArrivalOrder(false, false, false);
    }

    /**
     * The same with both styles on one key: a blocking holder, a blocking waiter (its thread parked, woken by the
     * hand-off), then a callback waiter.
     */
    @Test
    void mixedCallersHandOnInArrivalOrder() {
        handsOnInArrivalOrder(true, true, false);
    }

    private void handsOnInArrivalOrder(boolean blockingHolder, boolean blockingFirst, boolean blockingSecond) {
        check(() -> {
            Holders holders = new Holders();
            RedisLockHandle first = blockingHolder ? block(engine, new Object()) : callback(engine, new Object());
            List<Thread> waiters = new ArrayList<>();
            List<Boolean> styles = List.of(blockingFirst, blockingSecond);
            for (String name : List.of("a", "b")) {
                boolean blocking = styles.get(waiters.size());
                Object owner = new Object();
                waiters.add(start(() -> holders.hold(name, owner, () -> call(blocking, owner), () -> { })));
                awaitQueued(engine, waiters.size());
            }
            first.release();
            joinAll(waiters);
            expect(holders.order.equals(List.of("a", "b")), "FIFO: a, then b; was " + holders.order);
        });
    }

    /**
     * Two callback calls of one owner wait behind another owner: when the first is handed the lock, the second
     * re-enters it while the first holds it (each waits inside for the other, so a second call held back hangs).
     */
    @Test
    void queuedCallsOfTheGrantedOwnerReenter() {
        queuedCallsReenter(false, false);
    }

    /** The same with the owner's first call a callback call and its second blocking. */
    @Test
    void queuedCallbackAndBlockingCallsOfTheGrantedOwnerReenter() {
        queuedCallsReenter(false, true);
    }

    private void queuedCallsReenter(boolean blockingFirst, boolean blockingSecond) {
        check(() -> {
            Holders holders = new Holders();
            Object owner = new Object();
            AtomicInteger inside = new AtomicInteger();
            RedisLockHandle first = callback(engine, new Object());
            List<Thread> waiters = new ArrayList<>();
            List<Boolean> styles = List.of(blockingFirst, blockingSecond);
            for (String name : List.of("a1", "a2")) {
                boolean blocking = styles.get(waiters.size());
                waiters.add(start(() -> holders.hold(name, owner, () -> call(blocking, owner), () -> {
                    inside.incrementAndGet();
                    while (inside.get() < 2) {
                        Thread.onSpinWait(); // the owner's other call enters meanwhile
                    }
                })));
                awaitQueued(engine, waiters.size());
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
            RedisLockHandle first = callback(engine, new Object());
            Object cancelledOwner = new Object();
            ModelCaller cancelled = new ModelCaller(engine, KEY, cancelledOwner);
            Thread cancelledThread = start(() -> holders.hold("cancelled", cancelledOwner, cancelled::run, () -> { }));
            awaitQueued(engine, 1);
            Object next = new Object();
            Thread behind = start(() -> holders.hold("next", next, () -> callback(engine, next), () -> { }));
            awaitQueued(engine, 2);
            cancelled.cancel();
            first.release();
            joinAll(List.of(cancelledThread, behind));
            expect(holders.order.contains("next"), "the waiter behind was served: " + holders.order);
        });
    }

    /**
     * The service closed while a blocking and a callback waiter queue behind a holder: both end with the service's
     * error (a waiter the close does not end waits for ever, as the holder keeps the lock until they have ended).
     */
    @Test
    void closeEndsEveryWaiter() {
        closeWhileWaiting(false);
    }

    /**
     * The same while the holder releases: each waiter ends, holding the lock or with the service's error, one holder
     * at a time, and a lock handed to a waiter as it ended is released (the check's end: the lock free in Redis, the
     * queue gone).
     */
    @Test
    void closeWhileTheHolderReleasesLeavesNoLockBehind() {
        closeWhileWaiting(true);
    }

    private void closeWhileWaiting(boolean releaseMeanwhile) {
        check(() -> {
            Holders holders = new Holders();
            RedisLockHandle first = callback(engine, new Object());
            List<Thread> threads = new ArrayList<>();
            List<String> names = List.of("blocking", "callback");
            for (String name : names) {
                Object owner = new Object();
                boolean blocking = threads.isEmpty();
                threads.add(start(() -> holders.hold(name, owner, () -> closedOrHeld(holders, name, blocking, owner),
                        () -> { })));
                awaitQueued(engine, threads.size());
            }
            threads.add(start(engine::endWaits));
            if (releaseMeanwhile) {
                first.release();
            }
            joinAll(threads);
            if (!releaseMeanwhile) {
                first.release();
            }
            for (String name : names) {
                boolean held = releaseMeanwhile && holders.order.contains(name); // held only if the lock was released
                expect(held || holders.order.contains(name + " closed"), name + " ended: " + holders.order);
            }
        });
    }

    private @Nullable RedisLockHandle closedOrHeld(Holders holders, String name, boolean blocking, Object owner) {
        try {
            return call(blocking, owner);
        }
        catch (IllegalStateException closed) {
            holders.note(name + " closed");
            return null;
        }
    }

    private RedisLockHandle call(boolean blocking, Object owner) {
        return blocking ? block(engine, owner) : callback(engine, owner);
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
}
