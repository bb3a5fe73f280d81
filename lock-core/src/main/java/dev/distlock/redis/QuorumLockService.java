package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.MultiLockHandle;
import dev.distlock.redis.Fanout.Answer;
import dev.distlock.redis.Hold.HoldKey;
import dev.distlock.redis.QuorumHandle.Member;

/**
 * A {@link LockService} over N independent Redis masters (odd, at least 3), in the manner of Redlock: a lock is held
 * when a quorum of N/2+1 masters grant it. It survives the failure or loss of state of up to N/2 masters; it does not
 * protect against process pauses or clock jumps, for which the {@link LockHandle#fencingToken() fencing token} is the
 * remedy.
 *
 * <p>An attempt asks every master at once, through its own {@link RedisLockService}, and waits at most the node
 * timeout for the answers. It succeeds when a quorum granted the lock and the quorum's lease, less the time spent and
 * a clock drift allowance of 1% of the lease plus 2 ms, has not run out; otherwise every master that granted it
 * releases it again, including a master whose grant arrives after the node timeout. A waiting caller tries again after
 * a random 50 to 250 ms (capped by its remaining wait), so that callers that split the masters between them do not
 * meet again. Without a fixed lease each master's watchdog renews its member lock, and the lock is lost as soon as
 * fewer than a quorum of member locks are held: {@link LockHandle#isHeld()} turns false, the
 * {@link LockHandle#onLeaseLost} callbacks run and a warning is logged.
 *
 * <p>Differences from {@link RedisLockService}: only {@link LockMode#EXCLUSIVE} locks (other modes fail with
 * {@link IllegalArgumentException}); waiters poll with random delays instead of waking on the release; a
 * {@code tryAcquire} may come back empty when nobody holds the lock, if a concurrent caller split the masters with it.
 * {@link LockUnavailableException} means fewer than a quorum of masters answered, so the lock could not be had even if
 * free: a {@code tryAcquire} throws it at once, an {@code acquire} keeps trying (masters may come back) and throws it
 * when its wait ends that way; {@link LockTimeoutException} means the lock stayed held by others. Reentrancy,
 * {@code acquireAll}, fixed leases, {@code releaseAfter} and the listener work as documented on {@link LockService}.
 *
 * <p>Fencing tokens strictly increase from one quorum grant of a key to the next (reentrant acquisitions share their
 * outer acquisition's token) as long as a quorum of the masters that granted the previous holder still remember its
 * token: each master keeps it for the token retention after the grant (and after the release), and forgets it when it
 * restarts without persistence. Beyond that they fall back to the masters' clocks in microseconds, like a single Redis.
 *
 * <p>Thread-safe. Calls to the masters run on a pool of daemon threads; each master's service adds its watchdog
 * thread. {@link #close()} stops them without releasing held locks, which expire at the end of their lease.
 */
public final class QuorumLockService implements LockService, AutoCloseable {

    private static final Log logger = LogFactory.getLog(QuorumLockService.class);

    private static final long RETRY_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final long RETRY_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final QuorumMasters masters;

    private final QuorumFence fence;

    private final Duration defaultWaitTime;

    private final Duration watchdogLease;

    private final LockListener listener;

    private final ConcurrentHashMap<HoldKey, QuorumHold> holds = new ConcurrentHashMap<>();

    private volatile boolean closed;

    private QuorumLockService(Builder builder) {
        LockKeys keys = new LockKeys(builder.keyPrefix);
        String retentionMillis = Long.toString(builder.tokenRetention.toMillis());
        List<QuorumNode> nodes = new ArrayList<>(builder.masters.size());
        for (int i = 0; i < builder.masters.size(); i++) {
            nodes.add(new QuorumNode(i, builder.masters.get(i), builder.nodeBuilders.get(i).build(), keys,
                    retentionMillis));
        }
        this.masters = new QuorumMasters(nodes, builder.nodeTimeout);
        this.fence = new QuorumFence(this.masters);
        this.defaultWaitTime = builder.defaultWaitTime;
        this.watchdogLease = builder.watchdogLease;
        this.listener = builder.listener;
    }

    /**
     * Starts building a service on one template per independent Redis master. Give each template's connection a
     * command timeout of about the node timeout, and preferably Lettuce's
     * {@code ClientOptions.DisconnectedBehavior.REJECT_COMMANDS}, so that a master that is down fails at once.
     *
     * @param masters an odd number, at least 3, of templates on distinct masters (not replicas of each other)
     * @throws IllegalArgumentException when the list is null, holds a null or the same template twice, or its size is
     * even or below 3
     */
    public static Builder builder(List<StringRedisTemplate> masters) {
        if (masters == null) {
            throw new IllegalArgumentException("masters must not be null");
        }
        if (masters.size() < 3 || masters.size() % 2 == 0) {
            throw new IllegalArgumentException("masters must be an odd number of at least 3 independent Redis "
                    + "masters, but were " + masters.size());
        }
        Map<StringRedisTemplate, Boolean> seen = new IdentityHashMap<>();
        for (int i = 0; i < masters.size(); i++) {
            StringRedisTemplate master = masters.get(i);
            if (master == null) {
                throw new IllegalArgumentException("masters[" + i + "] must not be null");
            }
            if (seen.put(master, Boolean.TRUE) != null) {
                throw new IllegalArgumentException("masters[" + i + "] is the same template as an earlier one");
            }
        }
        return new Builder(List.copyOf(masters));
    }

    /** How many masters there are (N). */
    public int masterCount() {
        return this.masters.nodes.size();
    }

    /** How many masters must grant a lock: N/2+1. */
    public int quorum() {
        return this.masters.quorum;
    }

    @Override
    public LockHandle acquire(String key, LockOptions options) {
        QuorumHandle handle = acquire(key, options, false);
        if (handle == null) {
            throw new IllegalStateException("unreachable: a waiting acquisition returns a handle or throws");
        }
        return handle;
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key, LockOptions options) {
        return Optional.ofNullable(acquire(key, options, true));
    }

    @Override
    public MultiLockHandle acquireAll(Collection<String> keys, LockOptions options) {
        LockSet locks = acquireAll(keys, options, false);
        if (locks == null) {
            throw new IllegalStateException("unreachable: a waiting acquisition returns a handle or throws");
        }
        return locks;
    }

    @Override
    public Optional<MultiLockHandle> tryAcquireAll(Collection<String> keys, LockOptions options) {
        return Optional.ofNullable(acquireAll(keys, options, true));
    }

    private @Nullable LockSet acquireAll(Collection<String> keys, LockOptions options, boolean once) {
        List<String> canonical = MultiKeyAcquisition.canonicalKeys(keys);
        checkOptions(options);
        Duration wait = (options.waitTime() != null) ? options.waitTime() : this.defaultWaitTime;
        return MultiKeyAcquisition.acquire(this, canonical, options, wait, once);
    }

    private void checkOptions(@Nullable LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        if (options.mode() != LockMode.EXCLUSIVE) {
            throw new IllegalArgumentException("A QuorumLockService takes only EXCLUSIVE locks, but the mode was "
                    + options.mode());
        }
        if (this.closed) {
            throw new IllegalStateException("This LockService is closed");
        }
    }

    /** Acquires, or returns null when {@code once} and the lock is held. */
    private @Nullable QuorumHandle acquire(String key, LockOptions options, boolean once) {
        LockKeys.checkKey(key);
        checkOptions(options);
        long start = System.nanoTime();
        Duration wait = once ? Duration.ZERO
                : (options.waitTime() != null ? options.waitTime() : this.defaultWaitTime);
        Object owner = (options.owner() != null) ? options.owner() : Thread.currentThread();
        Duration lease = (options.leaseTime() != null) ? options.leaseTime() : this.watchdogLease;
        HoldKey holdKey = new HoldKey(owner, key, LockMode.EXCLUSIVE);
        Attempt attempt = new Attempt(key, options.withOwner(owner), lease, holdKey);
        String name = options.nameFor(key);
        QuorumHandle handle;
        try {
            handle = waitFor(attempt, start, saturatedNanos(wait));
        }
        catch (LockException ex) {
            Listeners.call(() -> this.listener.acquireFailed(key, name, since(start), ex));
            throw ex;
        }
        Duration waited = since(start);
        if (handle == null) {
            Listeners.call(() -> this.listener.notAcquired(key, name, waited));
            if (once) {
                return null;
            }
            throw new LockTimeoutException(key, waited);
        }
        Listeners.call(() -> this.listener.acquired(handle, waited));
        return handle;
    }

    /**
     * Attempts until a quorum grants the lock or the wait ends. Too few masters answering is retried too, as they may
     * come back (or have been slow to connect); if the last attempt failed so, that is thrown.
     */
    private @Nullable QuorumHandle waitFor(Attempt attempt, long start, long waitNanos) {
        try {
            while (true) {
                QuorumHandle handle = null;
                LockUnavailableException unavailable = null;
                try {
                    handle = attempt.run();
                }
                catch (LockUnavailableException ex) {
                    unavailable = ex;
                }
                long remaining = waitNanos - (System.nanoTime() - start);
                if (unavailable != null && remaining <= 0) {
                    throw unavailable;
                }
                if (handle != null || remaining <= 0) {
                    return handle;
                }
                long delay = ThreadLocalRandom.current().nextLong(RETRY_MIN_NANOS, RETRY_MAX_NANOS + 1);
                TimeUnit.NANOSECONDS.sleep(Math.min(delay, remaining));
                if (this.closed) {
                    throw new IllegalStateException(
                            "This LockService was closed while waiting for lock '" + attempt.key + "'");
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(attempt.key, ex);
        }
    }

    /** Releases every member of the handle at once; succeeds when a quorum of them was still held. */
    void release(QuorumHandle handle, Duration keepHeld) {
        List<Answer<@Nullable Void>> answers = this.masters.<@Nullable Void>callMembers(handle.members, member -> {
            if (keepHeld.isZero()) {
                member.handle().release();
            }
            else {
                member.handle().releaseAfter(keepHeld);
            }
            return null;
        }).awaitUninterruptibly(Long.MAX_VALUE).collect(ignored -> {
        });
        leave(handle);
        int released = 0;
        int unreachable = 0;
        List<RuntimeException> failures = new ArrayList<>();
        for (Answer<@Nullable Void> answer : answers) {
            RuntimeException failure = answer.failure();
            if (failure == null) {
                released++;
            }
            else {
                failures.add(failure);
                if (!(failure instanceof LeaseLostException)) {
                    unreachable++;
                }
            }
        }
        int quorum = this.masters.quorum;
        if (released >= quorum) {
            Listeners.call(() -> this.listener.released(handle, since(handle.acquiredNanos)));
            return;
        }
        String counts = "released on " + released + " of its " + handle.members.size() + " masters, " + quorum
                + " needed";
        LockException failure = (released + unreachable >= quorum && !handle.isLost())
                ? new LockUnavailableException(handle.key(), "Could not release lock '" + handle.key() + "' on "
                        + "enough Redis masters (" + counts + "); the rest expires at the end of its lease",
                        failures.get(0))
                : new LeaseLostException(handle.key(), "Lock '" + handle.key() + "' was no longer held by a quorum "
                        + "of Redis masters at release (" + counts + "): its lease was lost", failures.get(0));
        failures.subList(1, failures.size()).forEach(failure::addSuppressed);
        if (failure instanceof LockUnavailableException) {
            logger.warn(failure.getMessage());
        }
        Listeners.call(() -> this.listener.releaseFailed(handle, failure));
        throw failure;
    }

    private void leave(QuorumHandle handle) {
        if (handle.hold.leave(handle)) {
            this.holds.remove(handle.hold.holdKey, handle.hold);
        }
    }

    /** Follows the hold's member locks: once fewer than a quorum are left, reports the hold lost. */
    private void watch(QuorumHold hold) {
        for (Member member : hold.members) {
            member.handle().onLeaseLost(reason -> {
                if (hold.memberLost(member, reason)) {
                    quorumLost(hold);
                }
            });
        }
    }

    /** Reports a lost quorum once: logs it, tells the listener, then every open handle's callbacks. */
    private void quorumLost(QuorumHold hold) {
        LeaseLostException reason = hold.lostReason();
        if (reason == null) {
            throw new IllegalStateException("unreachable: a lost hold has a reason");
        }
        this.holds.remove(hold.holdKey, hold);
        logger.warn(reason.getMessage());
        List<QuorumHandle> handles = hold.openHandles();
        if (!handles.isEmpty()) {
            Listeners.call(() -> this.listener.leaseLost(handles.get(0), reason));
        }
        handles.forEach(handle -> handle.lost(reason));
    }

    /**
     * Checks that at least a quorum of the masters answer PING, asking all at once. Each ping is bounded by its
     * connection's timeouts, not by the node timeout, and a master counts as unreachable only after
     * {@value QuorumMasters#PING_ATTEMPTS} failed pings, since the first may have to connect (and a cold process may
     * be slow to).
     * Call it at startup: it also opens the connections, so that the first lock does not spend its node timeout
     * connecting.
     *
     * @throws LockUnavailableException when fewer than a quorum answered; the message names each master that did not
     */
    public void verifyQuorumReachable() {
        this.masters.verifyReachable();
    }

    /**
     * Checks on every master at once, as {@link RedisLockService#verifyAccess()} does, that its Redis user may run
     * everything the locks need.
     *
     * @throws IllegalStateException when a master refuses a command for lack of permission; the message names the
     * master and the ACL rules to grant
     * @throws LockUnavailableException when fewer than a quorum of the masters could be reached
     */
    public void verifyAccess() {
        this.masters.verifyAccess();
    }

    /**
     * Stops the calls to the masters and each master's watchdog, writing nothing more to Redis, as if the process had
     * died: held locks expire at the end of their lease. Threads waiting for a lock stop with
     * {@link IllegalStateException}; acquiring afterwards throws it too. Releasing a handle still works.
     */
    @Override
    public void close() {
        this.closed = true;
        this.masters.close();
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }

    /** One call's attempts at one lock, each asking every master. */
    private final class Attempt {

        final String key;

        /** The caller's options with the owner named, since the masters are asked from pool threads. */
        final LockOptions memberOptions;

        final Duration drift;

        final HoldKey holdKey;

        Attempt(String key, LockOptions memberOptions, Duration lease, HoldKey holdKey) {
            this.key = key;
            this.memberOptions = memberOptions;
            this.drift = lease.dividedBy(100).plusMillis(2);
            this.holdKey = holdKey;
        }

        /**
         * Asks every master for the lock at once.
         *
         * @return the handle, or null when no quorum granted it in time
         * @throws LockUnavailableException when fewer than a quorum of masters answered
         */
        @Nullable QuorumHandle run() throws InterruptedException {
            if (QuorumLockService.this.closed) {
                throw new IllegalStateException("This LockService is closed");
            }
            long start = System.nanoTime();
            Fanout<Optional<LockHandle>> grants = QuorumLockService.this.masters
                .callEach(node -> node.locks.tryAcquire(this.key, this.memberOptions));
            List<Answer<Optional<LockHandle>>> answers;
            try {
                answers = grants.await(QuorumLockService.this.masters.nodeTimeoutNanos())
                    .collect(QuorumMasters::releaseLate);
            }
            catch (InterruptedException ex) {
                grants.giveUp(QuorumMasters::releaseLate);
                throw ex;
            }
            List<Member> granted = new ArrayList<>();
            int refused = 0;
            for (int i = 0; i < answers.size(); i++) {
                Optional<LockHandle> grant = answers.get(i).value();
                if (grant != null && grant.isPresent()) {
                    granted.add(new Member(QuorumLockService.this.masters.nodes.get(i), grant.get()));
                }
                else if (grant != null) {
                    refused++;
                }
            }
            int quorum = QuorumLockService.this.masters.quorum;
            if (granted.size() >= quorum) {
                QuorumHandle handle;
                try {
                    handle = complete(granted, start);
                }
                catch (InterruptedException | RuntimeException ex) {
                    QuorumLockService.this.masters.releaseAll(granted);
                    throw ex;
                }
                if (handle != null) {
                    return handle;
                }
            }
            else {
                QuorumLockService.this.masters.releaseAll(granted);
            }
            if (granted.size() + refused < quorum) {
                QuorumLockService.this.masters.requireQuorum(this.key, "Lock '" + this.key + "' cannot get a quorum",
                        answers);
            }
            return null;
        }

        /**
         * Turns a quorum of grants into a handle: gives it a fencing token (its outer acquisition's, when the owner
         * re-enters) and checks that its lease, less the time spent and the drift allowance, is still running.
         *
         * @return the handle, or null (with every member released) when that failed
         */
        private @Nullable QuorumHandle complete(List<Member> granted, long start) throws InterruptedException {
            QuorumHold outer = QuorumLockService.this.holds.get(this.holdKey);
            QuorumHandle handle = (outer != null) ? newHandle(outer, granted, start) : null;
            boolean reentrant = (handle != null);
            if (!reentrant) {
                List<Member> members = new ArrayList<>(granted);
                long token = QuorumLockService.this.fence.raise(this.key, members);
                if (token < 0) {
                    QuorumLockService.this.masters.releaseAll(granted);
                    return null;
                }
                handle = newHandle(new QuorumHold(this.holdKey, token, members, QuorumLockService.this.quorum()),
                        members, start);
                if (handle == null) {
                    throw new IllegalStateException("unreachable: a new hold takes its first handle");
                }
            }
            if (!handle.isHeld()) { // the lease, less the time spent and the drift allowance, has run out
                leave(handle);
                QuorumLockService.this.masters.releaseAll(granted);
                return null;
            }
            if (!reentrant) {
                QuorumLockService.this.holds.merge(this.holdKey, handle.hold,
                        (old, mine) -> old.isOver() ? mine : old);
                watch(handle.hold);
            }
            return handle;
        }

        /** A handle in the hold, or null when the hold has ended. */
        private @Nullable QuorumHandle newHandle(QuorumHold hold, List<Member> members, long start) {
            QuorumHandle handle = new QuorumHandle(QuorumLockService.this, this.key,
                    this.memberOptions.nameFor(this.key), members, hold, QuorumLockService.this.quorum(), this.drift,
                    start);
            return hold.join(handle) ? handle : null;
        }
    }

    /** Settings of a {@link QuorumLockService}; each is checked when set, with a message naming it. */
    public static final class Builder {

        private final List<StringRedisTemplate> masters;

        /** One per master, given every setting the masters' services share, which they check. */
        private final List<RedisLockService.Builder> nodeBuilders = new ArrayList<>();

        private String keyPrefix = "distlock";

        private Duration defaultWaitTime = Duration.ofSeconds(10);

        private Duration watchdogLease = Duration.ofSeconds(30);

        private Duration tokenRetention = Duration.ofHours(1);

        private Duration nodeTimeout = Duration.ofMillis(200);

        private LockListener listener = new LockListener() {
        };

        private Builder(List<StringRedisTemplate> masters) {
            this.masters = masters;
            masters.forEach(master -> this.nodeBuilders.add(RedisLockService.builder(master)));
        }

        /** The prefix of every Redis key of the locks, on every master. Default {@code distlock}. */
        public Builder keyPrefix(String keyPrefix) {
            this.nodeBuilders.forEach(node -> node.keyPrefix(keyPrefix));
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** How long {@code acquire} waits when the options name no wait time. Default 10 seconds. */
        public Builder defaultWaitTime(Duration defaultWaitTime) {
            this.nodeBuilders.forEach(node -> node.defaultWaitTime(defaultWaitTime));
            this.defaultWaitTime = defaultWaitTime;
            return this;
        }

        /**
         * The lease each master's watchdog keeps alive for locks taken without a fixed lease: how long such a lock
         * survives its holder's crash. Default 30 seconds; at least ten node timeouts.
         */
        public Builder watchdogLease(Duration watchdogLease) {
            this.nodeBuilders.forEach(node -> node.watchdogLease(watchdogLease));
            this.watchdogLease = watchdogLease;
            return this;
        }

        /** How often each master's watchdog renews leases. Default a third of the watchdog lease. */
        public Builder renewalInterval(Duration renewalInterval) {
            this.nodeBuilders.forEach(node -> node.renewalInterval(renewalInterval));
            return this;
        }

        /**
         * How long each master keeps a lock's last fencing token (the quorum fence from a grant, the lock's last token
         * from a release). Default one hour.
         */
        public Builder tokenRetention(Duration tokenRetention) {
            this.nodeBuilders.forEach(node -> node.tokenRetention(tokenRetention));
            this.tokenRetention = tokenRetention;
            return this;
        }

        /**
         * How long each master grants nothing new after its process started
         * ({@link RedisLockService.Builder#restartGrace}): a master that restarted without its data stays out of
         * quorums until the leases it forgot have ended. Default 30 seconds.
         */
        public Builder restartGrace(Duration restartGrace) {
            this.nodeBuilders.forEach(node -> node.restartGrace(restartGrace));
            return this;
        }

        /**
         * How long an attempt waits for each master's answer; a master that has not answered by then counts as down
         * for that attempt. Much shorter than the lease. Default 200 ms.
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            if (nodeTimeout == null || nodeTimeout.compareTo(Duration.ofMillis(1)) < 0
                    || nodeTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException(
                        "nodeTimeout must be between 1ms and 1 minute, but was " + nodeTimeout);
            }
            this.nodeTimeout = nodeTimeout;
            return this;
        }

        /** Receives the quorum locks' events (not the single masters'); see {@link LockListener} for its rules. */
        public Builder listener(LockListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener must not be null");
            }
            this.listener = listener;
            return this;
        }

        /**
         * Builds the service: one {@link RedisLockService} per master, with its watchdog thread.
         *
         * @throws IllegalArgumentException when the node timeout is more than a tenth of the watchdog lease, or the
         * renewal interval is not shorter than the watchdog lease
         */
        public QuorumLockService build() {
            if (this.nodeTimeout.multipliedBy(10).compareTo(this.watchdogLease) > 0) {
                throw new IllegalArgumentException("nodeTimeout (" + this.nodeTimeout
                        + ") must be at most a tenth of watchdogLease (" + this.watchdogLease + ")");
            }
            return new QuorumLockService(this);
        }
    }
}
