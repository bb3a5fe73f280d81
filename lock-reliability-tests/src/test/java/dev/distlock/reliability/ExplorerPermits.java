package dev.distlock.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.reactor.ReactiveLocks;

/**
 * The semaphore steps of an explorer client thread: permits of a small semaphore (one, or several at once), plain or
 * fair, with a fixed lease or the watchdog's, taken blocking, non-blocking, async (left to complete or withdrawn), in
 * {@code executeLocked} or the Reactor view, and released in any of the worker's ways; one acquisition and one
 * release in five get a reply delayed past the command timeout of their own. Each grant is recorded as a
 * {@link PermitHold} for the run's semaphore checks; the per-call checks are the worker's.
 */
final class ExplorerPermits {

    /** The semaphores: keys and their limits (one limit per key, as the docs ask). */
    static final String[] KEYS = { "sem:0", "sem:1" };

    static final int[] LIMITS = { 3, 2 };

    private static final long COMMAND_MILLIS = ExplorerSettings.COMMAND_TIMEOUT.toMillis();

    private static final long COMMAND_NANOS = ExplorerSettings.COMMAND_TIMEOUT.toNanos();

    private final ExplorerWorker worker;

    private final ExplorerRun run;

    private final ExplorerJournal journal;

    private final int serviceIndex;

    private final LockService service;

    private final Random random;

    ExplorerPermits(ExplorerWorker worker, ExplorerRun run, int serviceIndex, LockService service, Random random) {
        this.worker = worker;
        this.run = run;
        this.journal = run.journal();
        this.serviceIndex = serviceIndex;
        this.service = service;
        this.random = random;
    }

    /** One semaphore step, drawn from the worker's seeded random. */
    void step() {
        int index = this.random.nextInt(KEYS.length);
        int limit = LIMITS[index];
        int permits = (this.random.nextInt(3) == 0) ? 1 + this.random.nextInt(limit) : 1;
        boolean fair = this.random.nextInt(3) == 0;
        long leaseMillis = this.random.nextBoolean() ? 0 : 400 + this.random.nextInt(1200);
        LockOptions options = LockOptions.defaults().withMode(fair ? LockMode.FAIR : LockMode.EXCLUSIVE)
            .withPermits(limit, permits);
        if (leaseMillis > 0) {
            options = options.withLeaseTime(Duration.ofMillis(leaseMillis));
        }
        ExplorerWorker.Target target = new ExplorerWorker.Target(KEYS[index], options.mode(), permits);
        Ask ask = new Ask(target, limit, permits, leaseMillis, options);
        if (this.random.nextInt(5) == 0) { // the acquisition's reply comes past the command timeout: retried or undone
            this.run.delayRepliesNow(this.serviceIndex, this.random);
        }
        int pick = this.random.nextInt(100);
        if (pick < 30) {
            blocking(ask);
        }
        else if (pick < 45) {
            nonBlocking(ask);
        }
        else if (pick < 65) {
            async(ask);
        }
        else if (pick < 75) {
            asyncNonBlocking(ask);
        }
        else if (pick < 85) {
            executeLocked(ask);
        }
        else if (pick < 95) {
            reactor(ask);
        }
        else {
            twoOfOneThread(ask);
        }
    }

    private void blocking(Ask ask) {
        this.journal.operation("permit acquire");
        long waitMillis = this.random.nextInt(4000);
        long start = System.nanoTime();
        LockHandle permit;
        try {
            permit = this.service.acquire(ask.target.key(), ask.options.withWaitTime(Duration.ofMillis(waitMillis)));
        }
        catch (RuntimeException ex) {
            long end = System.nanoTime();
            this.worker.callBound("permit acquire " + ask, start, end, waitMillis + 3 * COMMAND_MILLIS);
            this.worker.failedAttempt(ask.target, start, end, ex, waitMillis);
            if (ex instanceof LockTimeoutException) {
                waited(ask, waitMillis, start, end, "permit acquire of " + ask + " (timed out)");
            }
            this.journal.log("permit acquire " + ask + " failed: " + ExplorerWorker.describe(ex));
            return;
        }
        long granted = System.nanoTime();
        this.worker.callBound("permit acquire " + ask, start, granted, waitMillis + 3 * COMMAND_MILLIS);
        String owner = owner("b");
        waited(ask, waitMillis, start, granted - COMMAND_NANOS, "permit acquire of " + ask + " by " + owner);
        holdAndRelease(ask, permit, owner, start, granted);
    }

    private void nonBlocking(Ask ask) {
        this.journal.operation("permit tryAcquire");
        long start = System.nanoTime();
        Optional<LockHandle> permit;
        try {
            permit = this.service.tryAcquire(ask.target.key(), ask.options);
        }
        catch (RuntimeException ex) {
            this.worker.failedAttempt(ask.target, start, System.nanoTime(), ex, 0);
            this.journal.log("permit tryAcquire " + ask + " failed: " + ExplorerWorker.describe(ex));
            return;
        }
        long granted = System.nanoTime();
        this.worker.callBound("permit tryAcquire " + ask, start, granted, 3 * COMMAND_MILLIS);
        permit.ifPresent(handle -> holdAndRelease(ask, handle, owner("t"), start, granted));
    }

    /** An async acquisition, left to complete, or withdrawn by orTimeout, complete or cancel. */
    private void async(Ask ask) {
        long waitMillis = this.random.nextInt(3000);
        int variant = this.random.nextInt(4);
        String[] kinds = { "permit async.acquire", "permit async.acquire+orTimeout", "permit async.acquire+complete",
                "permit async.acquire+cancel" };
        this.journal.operation(kinds[variant]);
        String owner = owner("a");
        long start = System.nanoTime();
        CompletableFuture<LockHandle> future = this.service.async()
            .acquire(ask.target.key(), ask.options.withWaitTime(Duration.ofMillis(waitMillis)));
        this.run.track(future, waitMillis + 3 * COMMAND_MILLIS, "permit async acquire " + ask + " of " + owner);
        AtomicLong completedAt = new AtomicLong(); // the grant, which may come long before a withdrawal is tried
        future.whenComplete((permit, failure) -> completedAt.compareAndSet(0, System.nanoTime()));
        long withdrawAfter = this.random.nextInt((int) waitMillis + 200);
        switch (variant) {
            case 1 -> future.orTimeout(Math.max(1, withdrawAfter), TimeUnit.MILLISECONDS);
            case 2 -> {
                ExplorerWorker.sleep(withdrawAfter);
                future.complete(null);
            }
            case 3 -> {
                ExplorerWorker.sleep(withdrawAfter);
                future.cancel(false);
            }
            default -> {
            }
        }
        LockHandle permit = null;
        Throwable failure = null;
        try {
            permit = future.get(waitMillis + 3 * COMMAND_MILLIS + ExplorerSettings.MARGIN_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
        catch (ExecutionException ex) {
            failure = ex.getCause();
        }
        catch (CancellationException ex) {
            failure = ex;
        }
        catch (TimeoutException ex) {
            return; // reported by the run's future monitor
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        long end = System.nanoTime();
        if (permit != null) {
            long granted = completedAt.get() != 0 ? completedAt.get() : end;
            if (variant == 0) {
                waited(ask, waitMillis, start, granted - COMMAND_NANOS, "permit async acquire of " + ask + " by "
                        + owner);
            }
            holdAndRelease(ask, permit, owner, start, granted);
        }
        else {
            // a withdrawn or failed attempt may still hold permits briefly: its grant is released when it lands
            long until = start + TimeUnit.MILLISECONDS.toNanos(waitMillis) + 2 * COMMAND_NANOS
                    + (ask.target.mode() == LockMode.FAIR ? ExplorerSettings.WAITER_LEASE.toNanos() : 0);
            this.journal.busy(ask.target.key(), start, Math.max(until, end + 2 * COMMAND_NANOS), ask.permits);
            this.journal.log("permit async acquire " + ask + " of " + owner + " ended without a permit: "
                    + ExplorerWorker.describe(failure));
        }
    }

    private void asyncNonBlocking(Ask ask) {
        this.journal.operation("permit async.tryAcquire");
        String owner = owner("a");
        long start = System.nanoTime();
        CompletableFuture<Optional<LockHandle>> future = this.service.async().tryAcquire(ask.target.key(),
                ask.options);
        this.run.track(future, 3 * COMMAND_MILLIS, "permit async tryAcquire " + ask + " of " + owner);
        try {
            Optional<LockHandle> permit = future.get(3 * COMMAND_MILLIS + ExplorerSettings.MARGIN_MILLIS,
                    TimeUnit.MILLISECONDS);
            long end = System.nanoTime();
            permit.ifPresent(handle -> holdAndRelease(ask, handle, owner, start, end));
        }
        catch (ExecutionException ex) {
            this.worker.failedAttempt(ask.target, start, System.nanoTime(), ex.getCause(), 0);
            this.journal.log("permit async tryAcquire " + ask + ": " + ExplorerWorker.describe(ex.getCause()));
        }
        catch (TimeoutException | InterruptedException ex) {
            // reported by the monitor
        }
    }

    /** executeLocked: the service releases; a lost permit surfaces as the call's LeaseLostException. */
    private void executeLocked(Ask ask) {
        this.journal.operation("permit executeLocked");
        long waitMillis = this.random.nextInt(3000);
        String owner = owner("e");
        long start = System.nanoTime();
        PermitHold[] hold = new PermitHold[1];
        Throwable failure = null;
        try {
            this.service.executeLocked(ask.target.key(), ask.options.withWaitTime(Duration.ofMillis(waitMillis)),
                    permit -> {
                        hold[0] = section(ask, permit, owner, start, System.nanoTime());
                        return null;
                    });
        }
        catch (RuntimeException ex) {
            failure = ex;
            this.journal.log("permit executeLocked " + ask + ": " + ExplorerWorker.describe(ex));
        }
        long end = System.nanoTime();
        this.worker.callBound("permit executeLocked " + ask, start, end, waitMillis + 8 * COMMAND_MILLIS + 500);
        this.journal.busy(ask.target.key(), start, end + COMMAND_NANOS, ask.permits);
        if (hold[0] != null) {
            hold[0].releasedByService(failure, end);
        }
    }

    private void reactor(Ask ask) {
        this.journal.operation("permit reactor.executeLocked");
        long waitMillis = this.random.nextInt(2000);
        String owner = owner("r");
        long bound = waitMillis + 8 * COMMAND_MILLIS + ExplorerSettings.MARGIN_MILLIS;
        PermitHold[] hold = new PermitHold[1];
        Throwable failure = null;
        long start = System.nanoTime();
        try {
            ReactiveLocks.of(this.service)
                .executeLocked(ask.target.key(), ask.options.withWaitTime(Duration.ofMillis(waitMillis)),
                        permit -> Mono.fromCallable(() -> {
                            hold[0] = section(ask, permit, owner, start, System.nanoTime());
                            return "done";
                        }).subscribeOn(Schedulers.boundedElastic()))
                .block(Duration.ofMillis(bound));
        }
        catch (RuntimeException ex) {
            failure = ex;
            this.journal.log("permit reactor executeLocked " + ask + ": " + ExplorerWorker.describe(ex));
        }
        long end = System.nanoTime();
        this.worker.callBound("permit reactor executeLocked " + ask, start, end,
                bound - ExplorerSettings.MARGIN_MILLIS);
        this.journal.busy(ask.target.key(), start, end + COMMAND_NANOS, ask.permits);
        if (hold[0] != null) {
            hold[0].releasedByService(failure, end);
        }
    }

    /** One thread takes a permit and, while holding it, another (never re-entry: two holders of one thread). */
    private void twoOfOneThread(Ask ask) {
        this.journal.operation("permit twice by one thread");
        Ask one = ask.permits == 1 ? ask : new Ask(ask.target, ask.limit, 1, ask.leaseMillis,
                ask.options.withPermits(ask.limit, 1));
        long start = System.nanoTime();
        LockHandle first;
        try {
            first = this.service.acquire(one.target.key(), one.options.withWaitTime(Duration.ofMillis(1500)));
        }
        catch (RuntimeException ex) {
            this.worker.failedAttempt(one.target, start, System.nanoTime(), ex, 1500);
            return;
        }
        long granted = System.nanoTime();
        String owner = owner("d");
        long secondStart = System.nanoTime();
        try {
            Optional<LockHandle> second = this.service.tryAcquire(one.target.key(), one.options);
            long secondGranted = System.nanoTime();
            second.ifPresent(handle -> holdAndRelease(one, handle, owner + "'", secondStart, secondGranted));
        }
        catch (RuntimeException ex) {
            this.journal.log("second permit of " + owner + ": " + ExplorerWorker.describe(ex));
        }
        holdAndRelease(one, first, owner, start, granted);
    }

    // ---- holding and releasing -------------------------------------------------------------------------------------

    private void holdAndRelease(Ask ask, LockHandle permit, String owner, long asked, long granted) {
        PermitHold hold = section(ask, permit, owner, asked, granted);
        if (this.random.nextInt(5) == 0) { // the release's reply comes past the command timeout: a retried release
            this.run.delayRepliesNow(this.serviceIndex, this.random);
        }
        this.worker.release(permit, ask.target, List.of(hold.holding), granted);
    }

    /** The holder's time with its permits: a pause (now and then past a fixed lease), a write to the resource. */
    private PermitHold section(Ask ask, LockHandle permit, String owner, long asked, long granted) {
        ExplorerWorker.Holding holding = this.worker.new Holding(permit, ask.target, owner);
        PermitHold hold = new PermitHold(ask.target.key(), ask.permits, ask.leaseMillis, holding, asked, granted);
        long start = System.nanoTime();
        boolean accepted = this.run.enterSemaphore(ask.target.key(), permit.fencingToken());
        int length = this.random.nextInt(100) < 3 ? 300 + this.random.nextInt(1500) : this.random.nextInt(80);
        ExplorerWorker.sleep(length);
        long end = System.nanoTime();
        hold.section(start, end, permit.isHeld(), accepted);
        this.run.permitHold(hold);
        return hold;
    }

    /**
     * A wait of at least the wake-up limit, for the semaphore wake-up check: a plain waiter is owed a grant while its
     * permits are free, a fair one while all are (an earlier waiter may rightly go first).
     */
    private void waited(Ask ask, long waitMillis, long from, long to, String what) {
        if (waitMillis >= ExplorerSettings.WAKE_LIMIT_MILLIS) {
            this.journal.permitsWaited(ask.target.key(), from, to, what, ask.limit,
                    ask.target.mode() == LockMode.FAIR ? ask.limit : ask.permits);
        }
    }

    private String owner(String kind) {
        return "s" + this.serviceIndex + "-p" + kind + ExplorerWorker.OWNERS.incrementAndGet();
    }

    private record Ask(ExplorerWorker.Target target, int limit, int permits, long leaseMillis, LockOptions options) {

        @Override
        public String toString() {
            return this.permits + " of " + this.limit + " " + this.target + (this.leaseMillis > 0
                    ? " lease " + this.leaseMillis + " ms" : " watchdog");
        }
    }

    /**
     * One grant of permits: when it was asked for and granted, its section, and what its holder was told (a loss
     * report, how its release ended). For {@code executeLocked}, the service's release ends with the call.
     */
    static final class PermitHold {

        final String key;

        final int permits;

        final long leaseMillis;

        final ExplorerWorker.Holding holding;

        final long askedNanos;

        final long grantedNanos;

        volatile long sectionStart;

        volatile long sectionEnd;

        volatile boolean validAtEnd;

        volatile boolean accepted;

        /** Set for executeLocked and Reactor: the call's failure (null: released) and when the call ended. */
        volatile boolean releasedByService;

        volatile Throwable serviceFailure;

        volatile long serviceEnd;

        PermitHold(String key, int permits, long leaseMillis, ExplorerWorker.Holding holding, long askedNanos,
                long grantedNanos) {
            this.key = key;
            this.permits = permits;
            this.leaseMillis = leaseMillis;
            this.holding = holding;
            this.askedNanos = askedNanos;
            this.grantedNanos = grantedNanos;
        }

        void section(long start, long end, boolean valid, boolean accepted) {
            this.sectionStart = start;
            this.sectionEnd = end;
            this.validAtEnd = valid;
            this.accepted = accepted;
        }

        void releasedByService(Throwable failure, long end) {
            this.serviceFailure = failure;
            this.serviceEnd = end;
            this.releasedByService = true;
        }

        long token() {
            return this.holding.lock.fencingToken();
        }

        String holder() {
            return this.holding.owner;
        }

        /** Whether the holder was told its permits were lost: a loss report, or a release that said so. */
        boolean lossReported() {
            Throwable failure = this.releasedByService ? this.serviceFailure : this.holding.releaseFailure;
            return this.holding.lostAt != 0 || failure instanceof LeaseLostException
                    || (failure != null && failure.getCause() instanceof LeaseLostException);
        }

        /** Whether the release completed and said the permits were given back (not lost, not failed). */
        boolean releasedCleanly() {
            if (this.releasedByService) {
                return this.serviceFailure == null;
            }
            return this.holding.releaseEndedAt != 0 && this.holding.releaseFailure == null;
        }

        /** When the holder stopped believing it held the permits: its release was sent (or its call ended). */
        long releaseSentNanos() {
            return this.releasedByService ? this.sectionEnd : this.holding.releaseStartedAt;
        }
    }
}
