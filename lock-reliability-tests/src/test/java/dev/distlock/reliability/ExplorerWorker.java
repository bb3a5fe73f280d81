package dev.distlock.reliability;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;
import dev.distlock.reactor.ReactiveLocks;
import dev.distlock.LockService;

/**
 * One client thread of the explorer: it draws operations from its own {@link ExplorerRandom} (seeded from the run's
 * seed; given a schedule, each operation starts from the random state the schedule names) and runs each through the
 * public API, recording critical sections, waits and the windows a lock may be held, and checking the per-call
 * invariants (bounded calls, no loss reported for a completed release, no loss thrown for a live lease).
 */
final class ExplorerWorker implements Runnable {

    static final String[] EXCLUSIVE_KEYS = { "ex:0", "ex:1" };

    static final String RW_KEY = "rw:0";

    static final String FAIR_KEY = "fair:0";

    static final AtomicLong OWNERS = new AtomicLong();

    private static final long COMMAND_MILLIS = ExplorerSettings.COMMAND_TIMEOUT.toMillis();

    private static final long COMMAND_NANOS = ExplorerSettings.COMMAND_TIMEOUT.toNanos();

    /** The names of the operations {@link #step()} picks, by the upper bound of their share of 125. */
    private static final String[] STEP_KINDS = { "acquire", "tryAcquire", "executeLocked", "async.acquire",
        "async.tryAcquire", "async.executeLocked", "reactor", "acquireAll", "reenter", "upgradeChurn", "undoneGrant",
        "leaseDelete", "semaphore" };

    private static final int[] STEP_BOUNDS = { 14, 22, 30, 50, 56, 62, 70, 77, 87, 95, 98, 100, 125 };

    private final ExplorerRun run;

    private final ExplorerJournal journal;

    private final int serviceIndex;

    private final LockService service;

    private final int workerIndex;

    private final ExplorerRandom random;

    private final ExplorerPermits permits;

    ExplorerWorker(ExplorerRun run, int serviceIndex, int workerIndex, LockService service, long seed) {
        this.run = run;
        this.journal = run.journal();
        this.serviceIndex = serviceIndex;
        this.workerIndex = workerIndex;
        this.service = service;
        this.random = new ExplorerRandom(seed);
        this.permits = new ExplorerPermits(this, run, serviceIndex, service, this.random);
    }

    /** Draws operations until the run stops; or, given a schedule, performs its operations of this worker. */
    @Override
    public void run() {
        if (this.run.schedule() == null) {
            while (!this.run.stopping()) {
                step();
            }
            return;
        }
        for (ExplorerSchedule.Op op : this.run.schedule().ops(this.serviceIndex, this.workerIndex)) {
            while (!this.run.stopping() && this.run.sinceClientsStarted() < op.atMillis()) {
                sleep(Math.min(50, op.atMillis() - this.run.sinceClientsStarted()));
            }
            if (this.run.stopping()) {
                return;
            }
            this.random.state(op.state()); // the state the operation started in decides all it draws
            step();
        }
    }

    /** One operation, drawn from the worker's random and recorded in the run's schedule with the state it began in. */
    private void step() {
        long state = this.random.state();
        // a fifth of the steps take permits of a semaphore, except in quorum mode, which refuses semaphores
        int pick = this.random.nextInt(this.run.quorum() ? 100 : 125);
        int kind = 0;
        while (pick >= STEP_BOUNDS[kind]) {
            kind++;
        }
        this.run.record(new ExplorerSchedule.Op(this.serviceIndex, this.workerIndex,
                this.run.sinceClientsStarted(), state, STEP_KINDS[kind]));
        try {
            if (pick >= 100) {
                this.permits.step();
            }
            else if (pick < 14) {
                blockingAcquire();
            }
            else if (pick < 22) {
                tryAcquire();
            }
            else if (pick < 30) {
                executeLocked();
            }
            else if (pick < 50) {
                asyncAcquire();
            }
            else if (pick < 56) {
                asyncTryAcquire();
            }
            else if (pick < 62) {
                asyncExecuteLocked();
            }
            else if (pick < 70) {
                reactor();
            }
            else if (pick < 77) {
                multiKey();
            }
            else if (pick < 87) {
                reenter();
            }
            else if (pick < 95) {
                upgradeChurn();
            }
            else if (pick < 98) {
                undoneGrantWithWaiter();
            }
            else {
                leaseDeletedAtRelease();
            }
        }
        catch (RuntimeException ex) {
            this.journal.log("op failed: " + describe(ex));
        }
    }

    // ---- operations ------------------------------------------------------------------------------------------------

    private void blockingAcquire() {
        this.journal.operation("acquire");
        Target target = target();
        long waitMillis = this.random.nextInt(6000);
        LockOptions options = options(target.mode, waitMillis);
        long start = System.nanoTime();
        LockHandle lock;
        try {
            lock = this.service.acquire(target.key, options);
        }
        catch (RuntimeException ex) {
            long end = System.nanoTime();
            callBound("acquire " + target, start, end, waitMillis + 3 * COMMAND_MILLIS);
            failedAttempt(target, start, end, ex, waitMillis);
            this.journal.log("acquire " + target + " failed: " + describe(ex));
            return;
        }
        long granted = System.nanoTime();
        callBound("acquire " + target, start, granted, waitMillis + 3 * COMMAND_MILLIS);
        if (waitMillis >= ExplorerSettings.WAKE_LIMIT_MILLIS) {
            this.journal.waited(target.key, start, granted - COMMAND_NANOS, "acquire of " + threadOwner());
        }
        holdAndRelease(lock, target, threadOwner(), granted);
    }

    private void tryAcquire() {
        this.journal.operation("tryAcquire");
        Target target = target();
        long start = System.nanoTime();
        Optional<LockHandle> lock;
        try {
            lock = this.service.tryAcquire(target.key, options(target.mode, 0));
        }
        catch (RuntimeException ex) {
            failedAttempt(target, start, System.nanoTime(), ex, 0);
            return;
        }
        long granted = System.nanoTime();
        callBound("tryAcquire " + target, start, granted, 3 * COMMAND_MILLIS);
        lock.ifPresent(handle -> holdAndRelease(handle, target, threadOwner(), granted));
    }

    private void executeLocked() {
        this.journal.operation("executeLocked");
        Target target = target();
        long waitMillis = this.random.nextInt(3000);
        long start = System.nanoTime();
        try {
            this.service.executeLocked(target.key, options(target.mode, waitMillis), lock -> {
                Holding holding = new Holding(lock, target, threadOwner());
                section(holding);
                return null;
            });
        }
        catch (RuntimeException ex) {
            this.journal.log("executeLocked " + target + ": " + describe(ex));
        }
        long end = System.nanoTime();
        this.journal.busy(target.key, start, end + COMMAND_NANOS);
        callBound("executeLocked " + target, start, end, waitMillis + 8 * COMMAND_MILLIS + 500);
    }

    /** An async acquisition, left to complete, or withdrawn by orTimeout, complete, completeExceptionally or cancel. */
    private void asyncAcquire() {
        Target target = target();
        long waitMillis = this.random.nextInt(3000);
        int variant = this.random.nextInt(5);
        String[] kinds = { "async.acquire", "async.acquire+orTimeout", "async.acquire+complete", "async.acquire+cancel",
                "async.acquire+completeExceptionally" };
        this.journal.operation(kinds[variant]);
        String owner = "s" + this.serviceIndex + "-a" + OWNERS.incrementAndGet();
        long start = System.nanoTime();
        CompletableFuture<LockHandle> future = this.service.async().acquire(target.key, options(target.mode,
                waitMillis).withOwner(new Object()));
        this.run.track(future, waitMillis + 3 * COMMAND_MILLIS, "async acquire " + target + " of " + owner);
        long withdrawAfter = this.random.nextInt((int) waitMillis + 200);
        boolean withdrawn = false;
        switch (variant) {
            case 1 -> future.orTimeout(Math.max(1, withdrawAfter), TimeUnit.MILLISECONDS);
            case 2 -> {
                sleep(withdrawAfter);
                withdrawn = future.complete(null);
            }
            case 3 -> {
                sleep(withdrawAfter);
                withdrawn = future.cancel(false);
            }
            case 4 -> {
                sleep(withdrawAfter);
                withdrawn = future.completeExceptionally(new IllegalStateException("explorer gave up"));
            }
            default -> {
            }
        }
        LockHandle lock = null;
        Throwable failure = null;
        try {
            lock = future.get(waitMillis + 3 * COMMAND_MILLIS + ExplorerSettings.MARGIN_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (ExecutionException ex) {
            failure = ex.getCause();
            withdrawn |= failure instanceof TimeoutException; // orTimeout's own exception
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
        if (lock != null) {
            if (variant == 0 && waitMillis >= ExplorerSettings.WAKE_LIMIT_MILLIS) {
                this.journal.waited(target.key, start, end - COMMAND_NANOS, "async acquire of " + owner);
            }
            holdAndRelease(lock, target, owner, end);
        }
        else if (withdrawn) {
            // a withdrawn attempt may still hold the lock briefly: its grant is released when it lands
            long until = start + TimeUnit.MILLISECONDS.toNanos(waitMillis) + 2 * COMMAND_NANOS
                    + (target.mode == LockMode.FAIR ? ExplorerSettings.WAITER_LEASE.toNanos() : 0);
            this.journal.busy(target.key, start, Math.max(until, end + 2 * COMMAND_NANOS));
            this.journal.log("async acquire " + target + " of " + owner + " withdrawn (" + kinds[variant] + ")");
        }
        else {
            failedAttempt(target, start, end, failure, waitMillis);
            this.journal.log("async acquire " + target + " of " + owner + ": " + describe(failure));
        }
    }

    private void asyncTryAcquire() {
        this.journal.operation("async.tryAcquire");
        Target target = target();
        String owner = "s" + this.serviceIndex + "-a" + OWNERS.incrementAndGet();
        long start = System.nanoTime();
        CompletableFuture<Optional<LockHandle>> future = this.service.async().tryAcquire(target.key,
                options(target.mode, 0).withOwner(new Object()));
        this.run.track(future, 3 * COMMAND_MILLIS, "async tryAcquire " + target);
        try {
            Optional<LockHandle> lock = future.get(3 * COMMAND_MILLIS + ExplorerSettings.MARGIN_MILLIS,
                    TimeUnit.MILLISECONDS);
            long end = System.nanoTime();
            lock.ifPresent(handle -> holdAndRelease(handle, target, owner, end));
        }
        catch (ExecutionException ex) {
            failedAttempt(target, start, System.nanoTime(), ex.getCause(), 0);
        }
        catch (TimeoutException | InterruptedException ex) {
            // reported by the monitor
        }
    }

    private void asyncExecuteLocked() {
        this.journal.operation("async.executeLocked");
        Target target = target();
        long waitMillis = this.random.nextInt(3000);
        String owner = "s" + this.serviceIndex + "-a" + OWNERS.incrementAndGet();
        long start = System.nanoTime();
        CompletableFuture<Object> future = this.service.async().executeLocked(target.key,
                options(target.mode, waitMillis).withOwner(new Object()), lock -> CompletableFuture.supplyAsync(() -> {
                    section(new Holding(lock, target, owner));
                    return null;
                }, this.run.helper()));
        this.run.track(future, waitMillis + 8 * COMMAND_MILLIS + 500, "async executeLocked " + target);
        try {
            future.get(waitMillis + 8 * COMMAND_MILLIS + ExplorerSettings.MARGIN_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (ExecutionException ex) {
            this.journal.log("async executeLocked " + target + ": " + describe(ex.getCause()));
        }
        catch (TimeoutException | InterruptedException ex) {
            // reported by the monitor
        }
        this.journal.busy(target.key, start, System.nanoTime() + COMMAND_NANOS);
    }

    private void reactor() {
        Target target = target();
        long waitMillis = this.random.nextInt(2000);
        ReactiveLocks locks = ReactiveLocks.of(this.service);
        String owner = "s" + this.serviceIndex + "-a" + OWNERS.incrementAndGet();
        LockOptions options = options(target.mode, waitMillis).withOwner(new Object());
        long bound = waitMillis + 8 * COMMAND_MILLIS + ExplorerSettings.MARGIN_MILLIS;
        long start = System.nanoTime();
        if (this.random.nextBoolean()) {
            this.journal.operation("reactor.executeLocked");
            try {
                locks.executeLocked(target.key, options, lock -> Mono.fromCallable(() -> {
                    section(new Holding(lock, target, owner));
                    return "done";
                }).subscribeOn(Schedulers.boundedElastic())).block(Duration.ofMillis(bound));
            }
            catch (RuntimeException ex) {
                this.journal.log("reactor executeLocked " + target + ": " + describe(ex));
            }
            long end = System.nanoTime();
            callBound("reactor executeLocked " + target, start, end, bound - ExplorerSettings.MARGIN_MILLIS);
            this.journal.busy(target.key, start, end + COMMAND_NANOS);
            return;
        }
        this.journal.operation("reactor.acquire+timeout");
        long timeout = 1 + this.random.nextInt((int) waitMillis + 300);
        LockHandle lock = null;
        try {
            lock = locks.acquire(target.key, options).timeout(Duration.ofMillis(timeout)).block(Duration.ofMillis(bound));
        }
        catch (RuntimeException ex) {
            this.journal.log("reactor acquire " + target + ": " + describe(ex));
        }
        long end = System.nanoTime();
        if (lock != null) {
            holdAndRelease(lock, target, owner, end);
        }
        else {
            long until = start + TimeUnit.MILLISECONDS.toNanos(waitMillis) + 2 * COMMAND_NANOS
                    + (target.mode == LockMode.FAIR ? ExplorerSettings.WAITER_LEASE.toNanos() : 0);
            this.journal.busy(target.key, start, Math.max(until, end + 2 * COMMAND_NANOS));
        }
    }

    private void multiKey() {
        this.journal.operation("acquireAll");
        long waitMillis = this.random.nextInt(3000);
        List<String> keys = this.random.nextBoolean() ? List.of(EXCLUSIVE_KEYS[1], EXCLUSIVE_KEYS[0])
                : List.of(EXCLUSIVE_KEYS[0], EXCLUSIVE_KEYS[1]);
        long start = System.nanoTime();
        MultiLockHandle set;
        try {
            set = this.service.acquireAll(keys, options(LockMode.EXCLUSIVE, waitMillis));
        }
        catch (RuntimeException ex) {
            long end = System.nanoTime();
            for (String key : keys) {
                failedAttempt(new Target(key, LockMode.EXCLUSIVE), start, end, ex, waitMillis);
            }
            return;
        }
        long granted = System.nanoTime();
        callBound("acquireAll " + keys, start, granted, waitMillis + 6 * COMMAND_MILLIS);
        List<Holding> members = new ArrayList<>();
        for (String key : keys) {
            members.add(new Holding(set.member(key), new Target(key, LockMode.EXCLUSIVE), threadOwner()));
        }
        long sectionStart = System.nanoTime();
        sleep(this.random.nextInt(60));
        for (Holding member : members) {
            this.run.write(member.target.key, member.lock.fencingToken());
        }
        long sectionEnd = System.nanoTime();
        for (Holding member : members) {
            this.run.section(member.target, member.owner, member.lock.fencingToken(), sectionStart, sectionEnd,
                    member.lock.isHeld());
        }
        release(set, new Target(keys.get(0) + "+" + keys.get(1), LockMode.EXCLUSIVE), members, granted);
    }

    /** A lock re-entered by its thread; the inner handle is released in one of the ways, then the outer. */
    private void reenter() {
        this.journal.operation("reentry");
        Target target = target();
        long start = System.nanoTime();
        LockHandle outer;
        try {
            outer = this.service.acquire(target.key, options(target.mode, this.random.nextInt(2000)));
        }
        catch (RuntimeException ex) {
            failedAttempt(target, start, System.nanoTime(), ex, 2000);
            return;
        }
        long granted = System.nanoTime();
        Holding holding = new Holding(outer, target, threadOwner());
        long sectionStart = System.nanoTime();
        try {
            LockHandle inner = this.service.acquire(target.key, options(target.mode, 500));
            Holding innerHolding = new Holding(inner, target, threadOwner());
            sleep(this.random.nextInt(40));
            release(inner, target, List.of(innerHolding), granted);
        }
        catch (RuntimeException ex) {
            this.journal.log("re-entry of " + target + ": " + describe(ex));
        }
        if (target.mode != LockMode.READ) {
            this.run.write(target.key, outer.fencingToken());
        }
        this.run.section(target, holding.owner, outer.fencingToken(), sectionStart, System.nanoTime(),
                outer.isHeld());
        release(outer, target, List.of(holding), granted);
    }

    /**
     * An explicit owner holding the read lock takes the write lock, releases it without waiting and takes it again at
     * once, a few times: the path where a retried release must only ever match the acquisition it retries.
     */
    private void upgradeChurn() {
        if (this.run.quorum()) {
            blockingAcquire(); // read/write locks are not offered in quorum mode
            return;
        }
        if (this.random.nextBoolean()) {
            writeThenReadChurn();
            return;
        }
        this.journal.operation("read+write churn");
        Object ownerObject = new Object();
        String owner = "s" + this.serviceIndex + "-o" + OWNERS.incrementAndGet();
        Target read = new Target(RW_KEY, LockMode.READ);
        Target write = new Target(RW_KEY, LockMode.WRITE);
        long start = System.nanoTime();
        LockHandle readLock;
        try {
            readLock = this.service.acquire(RW_KEY, options(LockMode.READ, 1500).withOwner(ownerObject));
        }
        catch (RuntimeException ex) {
            failedAttempt(read, start, System.nanoTime(), ex, 1500);
            return;
        }
        long readGranted = System.nanoTime();
        Holding readHolding = new Holding(readLock, read, owner);
        long readStart = System.nanoTime();
        List<Runnable> checks = new ArrayList<>();
        int rounds = 1 + this.random.nextInt(4);
        for (int i = 0; i < rounds; i++) {
            long writeStart = System.nanoTime();
            LockHandle writeLock;
            try {
                writeLock = this.service.acquire(RW_KEY, options(LockMode.WRITE, 300).withOwner(ownerObject));
            }
            catch (RuntimeException ex) {
                failedAttempt(write, writeStart, System.nanoTime(), ex, 300);
                this.journal.log("upgrade of " + owner + ": " + describe(ex));
                break;
            }
            long writeGranted = System.nanoTime();
            Holding writeHolding = new Holding(writeLock, write, owner);
            section(writeHolding);
            long deadlineLeft = millisLeft(writeLock);
            boolean attached = this.random.nextBoolean() && this.run.delayRepliesNow(this.serviceIndex, this.random);
            long releaseStart = System.nanoTime();
            CompletableFuture<Void> released = writeLock.releaseAsync();
            if (attached) {
                sleep(this.random.nextInt(90));
            }
            this.run.track(released, 5 * COMMAND_MILLIS, "releaseAsync of write lock of " + owner);
            checks.add(() -> finishRelease(writeHolding, List.of(writeHolding), released, releaseStart, deadlineLeft, writeGranted, 0,
                    "releaseAsync"));
        }
        for (Runnable check : checks) {
            check.run();
        }
        this.run.section(read, owner, readLock.fencingToken(), readStart, System.nanoTime(), readLock.isHeld());
        release(readLock, read, List.of(readHolding), readGranted);
    }

    /**
     * An explicit owner holding the write lock reads, releases the read lock without waiting and reads again, a few
     * times; then it gives up the write lock and reads on: a retried read release must not end the later read.
     */
    private void writeThenReadChurn() {
        this.journal.operation("write+read churn");
        Object ownerObject = new Object();
        String owner = "s" + this.serviceIndex + "-o" + OWNERS.incrementAndGet();
        Target read = new Target(RW_KEY, LockMode.READ);
        Target write = new Target(RW_KEY, LockMode.WRITE);
        long start = System.nanoTime();
        LockHandle writeLock;
        try {
            writeLock = this.service.acquire(RW_KEY, options(LockMode.WRITE, 1500).withOwner(ownerObject));
        }
        catch (RuntimeException ex) {
            failedAttempt(write, start, System.nanoTime(), ex, 1500);
            return;
        }
        long writeGranted = System.nanoTime();
        Holding writeHolding = new Holding(writeLock, write, owner);
        long writeStart = System.nanoTime();
        this.run.write(RW_KEY, writeLock.fencingToken());
        List<Runnable> checks = new ArrayList<>();
        int rounds = 1 + this.random.nextInt(4);
        for (int i = 0; i < rounds; i++) {
            LockHandle readLock;
            try {
                readLock = this.service.acquire(RW_KEY, options(LockMode.READ, 300).withOwner(ownerObject));
            }
            catch (RuntimeException ex) {
                this.journal.log("read of write holder " + owner + ": " + describe(ex));
                break;
            }
            long readGranted = System.nanoTime();
            Holding readHolding = new Holding(readLock, read, owner);
            sleep(this.random.nextInt(20));
            long deadlineLeft = millisLeft(readLock);
            boolean attached = this.random.nextBoolean() && this.run.delayRepliesNow(this.serviceIndex, this.random);
            long releaseStart = System.nanoTime();
            CompletableFuture<Void> released = readLock.releaseAsync();
            this.run.track(released, 5 * COMMAND_MILLIS, "releaseAsync of read lock of " + owner);
            checks.add(() -> finishRelease(readHolding, List.of(readHolding), released, releaseStart, deadlineLeft, readGranted, 0,
                    "releaseAsync"));
            if (attached) {
                sleep(this.random.nextInt(90)); // the next read is sent a little after the release
            }
        }
        LockHandle lastRead = null;
        try {
            lastRead = this.service.acquire(RW_KEY, options(LockMode.READ, 300).withOwner(ownerObject));
        }
        catch (RuntimeException ex) {
            this.journal.log("read of write holder " + owner + ": " + describe(ex));
        }
        long lastReadGranted = System.nanoTime();
        this.run.section(write, owner, writeLock.fencingToken(), writeStart, System.nanoTime(), writeLock.isHeld());
        release(writeLock, write, List.of(writeHolding), writeGranted);
        if (lastRead != null) {
            Holding lastHolding = new Holding(lastRead, read, owner);
            long readStart = System.nanoTime();
            sleep(100 + this.random.nextInt(300));
            this.run.section(read, owner, lastRead.fencingToken(), readStart, System.nanoTime(), lastRead.isHeld());
            release(lastRead, read, List.of(lastHolding), lastReadGranted);
        }
        for (Runnable check : checks) {
            check.run();
        }
    }

    /**
     * An acquisition whose reply is delayed past the command timeout (so its grant is undone), with a waiter of the
     * same service started right after it failed: the undo frees the lock, and the waiter must be woken.
     */
    private void undoneGrantWithWaiter() {
        String key = EXCLUSIVE_KEYS[this.random.nextInt(EXCLUSIVE_KEYS.length)];
        Target target = new Target(key, LockMode.EXCLUSIVE);
        if (!this.run.delayRepliesNow(this.serviceIndex, this.random)) {
            return;
        }
        this.journal.operation("undone grant + waiter");
        long start = System.nanoTime();
        try {
            LockHandle lock = this.service.acquire(key, options(LockMode.EXCLUSIVE, 0).withOwner(new Object()));
            holdAndRelease(lock, target, "s" + this.serviceIndex + "-o" + OWNERS.incrementAndGet(), System.nanoTime());
            return; // the reply came in time after all
        }
        catch (RuntimeException ex) {
            failedAttempt(target, start, System.nanoTime(), ex, 0);
            this.journal.log("attempt of " + target + " with a delayed reply: " + describe(ex));
        }
        String owner = "s" + this.serviceIndex + "-o" + OWNERS.incrementAndGet();
        long waitStart = System.nanoTime();
        LockHandle lock;
        try {
            lock = this.service.acquire(key, LockOptions.defaults().withWaitTime(Duration.ofSeconds(6))
                .withOwner(new Object()));
        }
        catch (RuntimeException ex) {
            long end = System.nanoTime();
            failedAttempt(target, waitStart, end, ex, 6000);
            this.journal.waited(key, waitStart, end, "waiter " + owner + " after an undone grant");
            return;
        }
        long granted = System.nanoTime();
        this.journal.waited(key, waitStart, granted - COMMAND_NANOS, "waiter " + owner + " after an undone grant");
        holdAndRelease(lock, target, owner, granted);
    }

    /**
     * A lock of an owner of its own (nobody else of the service shares its hold) whose lease is deleted behind its
     * back right before its release, the release's first reply delayed past the command timeout
     * ({@link ExplorerRun#deleteLeaseNow}): the release, retried or not, must report the loss (no silent loss).
     */
    private void leaseDeletedAtRelease() {
        boolean fair = this.random.nextInt(4) == 0;
        Target target = fair ? new Target(FAIR_KEY, LockMode.FAIR)
                : new Target(EXCLUSIVE_KEYS[this.random.nextInt(EXCLUSIVE_KEYS.length)], LockMode.EXCLUSIVE);
        if (this.run.quorum() || !this.run.settings().faults().contains(ExplorerSettings.LEASE_DELETE)) {
            return;
        }
        this.journal.operation("lease deleted at release");
        String owner = "s" + this.serviceIndex + "-o" + OWNERS.incrementAndGet();
        long waitMillis = this.random.nextInt(3000);
        long start = System.nanoTime();
        LockHandle lock;
        try {
            lock = this.service.acquire(target.key, options(target.mode, waitMillis).withOwner(new Object()));
        }
        catch (RuntimeException ex) {
            failedAttempt(target, start, System.nanoTime(), ex, waitMillis);
            return;
        }
        long granted = System.nanoTime();
        Holding holding = new Holding(lock, target, owner);
        section(holding);
        holding.leaseDeleted = this.run.deleteLeaseNow(this.serviceIndex, target.key, target.mode, this.random);
        release(lock, target, List.of(holding), granted);
    }

    // ---- holding and releasing -------------------------------------------------------------------------------------

    private void holdAndRelease(LockHandle lock, Target target, String owner, long granted) {
        Holding holding = new Holding(lock, target, owner);
        section(holding);
        release(lock, target, List.of(holding), granted);
    }

    /** The critical section: a pause (now and then longer than a fixed lease: a paused client), a fenced write. */
    private void section(Holding holding) {
        long start = System.nanoTime();
        int length = this.random.nextInt(100) < 3 ? 300 + this.random.nextInt(1500) : this.random.nextInt(80);
        sleep(length);
        if (holding.target.mode != LockMode.READ) {
            this.run.write(holding.target.key, holding.lock.fencingToken());
        }
        this.run.section(holding.target, holding.owner, holding.lock.fencingToken(), start, System.nanoTime(),
                holding.lock.isHeld());
    }

    void release(LockHandle lock, Target target, List<Holding> holdings, long granted) {
        long deadlineLeft = millisLeft(lock);
        int how = this.random.nextInt(7);
        String[] kinds = { "release", "releaseAsync", "releaseAfter", "release from another thread",
                "release twice", "close", "releaseAsync+release" };
        this.journal.operation(kinds[how]);
        long delay = 0;
        long start = System.nanoTime();
        CompletableFuture<Void> released;
        try {
            switch (how) {
                case 1 -> released = lock.releaseAsync();
                case 2 -> {
                    delay = this.random.nextInt(120);
                    lock.releaseAfter(Duration.ofMillis(delay));
                    released = CompletableFuture.completedFuture(null);
                }
                case 3 -> {
                    Future<?> elsewhere = this.run.helper().submit(lock::release);
                    released = CompletableFuture.supplyAsync(() -> {
                        try {
                            elsewhere.get();
                            return null;
                        }
                        catch (ExecutionException ex) {
                            throw new java.util.concurrent.CompletionException(ex.getCause());
                        }
                        catch (InterruptedException ex) {
                            throw new IllegalStateException(ex);
                        }
                    }, Runnable::run);
                }
                case 4 -> {
                    lock.release();
                    lock.release(); // later calls do nothing
                    released = CompletableFuture.completedFuture(null);
                }
                case 5 -> {
                    lock.close();
                    released = CompletableFuture.completedFuture(null);
                }
                case 6 -> {
                    released = lock.releaseAsync();
                    lock.release(); // a second release while the first is in flight does nothing
                }
                default -> {
                    lock.release();
                    released = CompletableFuture.completedFuture(null);
                }
            }
        }
        catch (RuntimeException ex) {
            released = CompletableFuture.failedFuture(ex);
        }
        this.run.track(released, 5 * COMMAND_MILLIS, kinds[how] + " of " + target);
        for (Holding holding : holdings) {
            finishRelease(holding, holdings, released, start, deadlineLeft, granted, delay,
                    kinds[how] + (how == 2 ? "(" + delay + " ms)" : ""));
        }
    }

    /**
     * Checks one holding's release; {@code together} are the holdings one handle released at once (the keys of an
     * {@code acquireAll}), whose failure may name any of their keys.
     */
    private void finishRelease(Holding holding, List<Holding> together, CompletableFuture<Void> released, long start,
            long deadlineLeft,
            long granted, long delayMillis, String how) {
        Throwable failure = null;
        try {
            released.get(5 * COMMAND_MILLIS + ExplorerSettings.MARGIN_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (ExecutionException ex) {
            failure = ex.getCause();
        }
        catch (TimeoutException | InterruptedException | CancellationException ex) {
            failure = ex;
        }
        long end = System.nanoTime();
        holding.releaseStartedAt = start;
        holding.releaseFailure = failure;
        holding.releaseEndedAt = end;
        long tookMillis = (end - start) / 1_000_000;
        callBound("release of " + holding.target, start, end, 5 * COMMAND_MILLIS);
        this.journal.checked();
        if (failure == null) {
            holding.releasedAt = end;
            this.journal.log("released " + holding.target + " of " + holding.owner + " token "
                    + holding.lock.fencingToken() + (delayMillis > 0 ? " after " + delayMillis + " ms" : ""));
        }
        else {
            this.journal.log("release of " + holding.target + " of " + holding.owner + " failed: " + describe(failure));
        }
        if (holding.leaseDeleted && failure == null && holding.lostAt == 0) {
            this.journal.violation(how + " of " + holding.target + " by " + holding.owner + " (token "
                    + holding.lock.fencingToken() + ") completed as a clean release although its lease had been "
                    + "deleted before it was sent: a silent loss");
        }
        // A lease-delete fault deletes the key whoever holds it by then: a holding of any key released with this one
        // whose lease it deleted from (one command timeout before) its grant to the end of its release lost its lease
        // for real, and is right to hear it; the fault's own target (leaseDeleted) too.
        boolean deletedWhileHeld = together.stream()
            .anyMatch(other -> this.run.leaseDeletedBetween(other.target.key, granted - COMMAND_NANOS, end));
        if (failure instanceof LeaseLostException && holding.lostAt == 0 && deadlineLeft > tookMillis + 300
                && !holding.leaseDeleted && !deletedWhileHeld) {
            this.journal.violation(how + " of " + holding.target + " by " + holding.owner + " (token "
                    + holding.lock.fencingToken() + ") reported a lost lease although the lease had " + deadlineLeft
                    + " ms left and the release took " + tookMillis + " ms: " + describe(failure));
        }
        long heldUntil = end + TimeUnit.MILLISECONDS.toNanos(delayMillis) + COMMAND_NANOS;
        if (failure != null && !(failure instanceof LeaseLostException)) {
            heldUntil += ExplorerSettings.WATCHDOG_LEASE.toNanos() + TimeUnit.MILLISECONDS.toNanos(Math.max(0,
                    deadlineLeft));
        }
        this.journal.busy(holding.target.key, granted - COMMAND_NANOS, heldUntil, holding.target.permits);
    }

    /** An attempt that failed: only a wait that ran out proves that it never held the lock. */
    void failedAttempt(Target target, long start, long end, Throwable failure, long waitMillis) {
        if (failure instanceof LockTimeoutException && target.mode != LockMode.FAIR) {
            return;
        }
        long extra = target.mode == LockMode.FAIR ? ExplorerSettings.WAITER_LEASE.toNanos() : 0;
        this.journal.busy(target.key, start, end + 2 * COMMAND_NANOS + extra + 500_000_000L, target.permits);
    }

    void callBound(String what, long start, long end, long boundMillis) {
        this.journal.checked();
        long took = (end - start) / 1_000_000;
        if (took > boundMillis + ExplorerSettings.MARGIN_MILLIS) {
            this.journal.violation(what + " took " + took + " ms, more than its bound of " + boundMillis + " ms + "
                    + ExplorerSettings.MARGIN_MILLIS + " ms margin");
        }
    }

    // ---- choices ---------------------------------------------------------------------------------------------------

    private Target target() {
        int pick = this.random.nextInt(10);
        if (pick < 5 || this.run.quorum()) {
            return new Target(EXCLUSIVE_KEYS[this.random.nextInt(EXCLUSIVE_KEYS.length)], LockMode.EXCLUSIVE);
        }
        if (pick < 7) {
            return new Target(RW_KEY, LockMode.READ);
        }
        if (pick < 9) {
            return new Target(RW_KEY, LockMode.WRITE);
        }
        return new Target(FAIR_KEY, LockMode.FAIR);
    }

    private LockOptions options(LockMode mode, long waitMillis) {
        LockOptions options = LockOptions.defaults().withMode(mode).withWaitTime(Duration.ofMillis(waitMillis));
        return this.random.nextBoolean() ? options
                : options.withLeaseTime(Duration.ofMillis(400 + this.random.nextInt(1200)));
    }

    private String threadOwner() {
        return "s" + this.serviceIndex + "-" + Thread.currentThread().getName();
    }

    static long millisLeft(LockHandle lock) {
        return Duration.between(Instant.now(), lock.leaseDeadline()).toMillis();
    }

    static String describe(Throwable failure) {
        if (failure == null) {
            return "null";
        }
        String message = String.valueOf(failure.getMessage());
        return failure.getClass().getSimpleName() + ": "
                + (message.length() > 160 ? message.substring(0, 160) + "..." : message);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** A key and mode; {@code permits}: how many permits a semaphore step asks for (0: all of it, or not one). */
    record Target(String key, LockMode mode, int permits) {

        Target(String key, LockMode mode) {
            this(key, mode, 0);
        }

        @Override
        public String toString() {
            return this.mode + " " + this.key;
        }
    }

    /** One handle held by an owner: when its loss was reported, when its release completed. */
    final class Holding {

        final LockHandle lock;

        final Target target;

        final String owner;

        volatile long lostAt;

        /** Its lease was deleted right before its release ({@link ExplorerSettings#LEASE_DELETE}). */
        volatile boolean leaseDeleted;

        volatile long releasedAt;

        /** When its release was called, and how it ended (null: released), once {@link #releaseEndedAt} is set. */
        volatile long releaseStartedAt;

        volatile Throwable releaseFailure;

        volatile long releaseEndedAt;

        Holding(LockHandle lock, Target target, String owner) {
            this.lock = lock;
            this.target = target;
            this.owner = owner;
            ExplorerWorker.this.journal.log("holds " + target + " as " + owner + " token " + lock.fencingToken());
            lock.onLeaseLost(loss -> {
                long now = System.nanoTime();
                this.lostAt = now;
                ExplorerWorker.this.journal.log("lease lost: " + target + " of " + owner + ": " + describe(loss));
                long released = this.releasedAt;
                if (released != 0 && released < now) {
                    ExplorerWorker.this.journal.violation("lease loss of " + target + " reported to " + owner + " "
                            + (now - released) / 1_000_000 + " ms after its release had completed");
                }
            });
        }
    }
}
