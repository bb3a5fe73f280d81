package dev.distlock.redis.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.HeldLock;
import dev.distlock.LockHandle;
import dev.distlock.LockInspection;
import dev.distlock.LockMode;
import dev.distlock.LockService;
import dev.distlock.LockStatus;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.internal.AbstractLockService;
import dev.distlock.internal.Durations;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.script.LockKeys;

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
public final class QuorumLockService extends AbstractLockService implements LockInspection, AutoCloseable {

    private final QuorumParts parts;

    private final QuorumLockBackend backend;

    QuorumLockService(QuorumLockServiceBuilder settings) {
        this(settings, parts(settings));
    }

    private QuorumLockService(QuorumLockServiceBuilder settings, QuorumParts parts) {
        this(settings, parts, new QuorumLockBackend(parts, settings.watchdogLease, settings.maxKeyLength));
    }

    private QuorumLockService(QuorumLockServiceBuilder settings, QuorumParts parts, QuorumLockBackend backend) {
        super(settings.listener, settings.defaultWaitTime, backend);
        this.parts = parts;
        this.backend = backend;
    }

    /** The masters, each through its own service, and what the service keeps of them. */
    private static QuorumParts parts(QuorumLockServiceBuilder settings) {
        LockKeys keys = new LockKeys(settings.keyPrefix);
        String retentionMillis = Long.toString(settings.tokenRetention.toMillis());
        List<QuorumNode> nodes = new ArrayList<>(settings.masters.size());
        for (int i = 0; i < settings.masters.size(); i++) {
            nodes.add(new QuorumNode(i, settings.masters.get(i), settings.nodeBuilders.get(i).build(), keys,
                    retentionMillis));
        }
        return new QuorumParts(new QuorumMasters(nodes, settings.nodeTimeout), settings.listener,
                LogFactory.getLog(QuorumLockService.class));
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
    public static QuorumLockServiceBuilder builder(List<StringRedisTemplate> masters) {
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
        return new QuorumLockServiceBuilder(List.copyOf(masters));
    }

    /** How many masters there are (N). */
    public int masterCount() {
        return this.parts.masters.nodes.size();
    }

    /** How many masters must grant a lock: N/2+1. */
    public int quorum() {
        return this.parts.masters.quorum;
    }

    @Override
    public List<HeldLock> heldLocks() {
        List<HeldLock> held = new ArrayList<>();
        for (QuorumHold hold : this.parts.holds.values()) {
            HeldLock lock = hold.snapshot();
            if (lock != null) {
                held.add(lock);
            }
        }
        held.sort(Comparator.comparing(HeldLock::since).thenComparing(HeldLock::key));
        return Collections.unmodifiableList(held);
    }

    /**
     * One key's member locks as the first master that answers has them (masters in the order given), with each
     * holder's instance, owner, since, lease left and fencing token as {@link RedisLockService#inspect} reads them:
     * an operator's view, not a quorum decision. The other masters may differ; read them with each master's
     * {@code redis-cli} (see the operations docs) when it matters.
     *
     * @throws LockUnavailableException when no master answers
     */
    @Override
    public List<LockStatus> inspect(String key) {
        String checked = this.backend.checkKey(key);
        LockUnavailableException failure = null;
        for (QuorumNode node : this.parts.masters.nodes) {
            try {
                return node.locks.inspect(checked);
            }
            catch (LockUnavailableException ex) {
                failure = ex;
            }
        }
        throw Objects.requireNonNull(failure);
    }

    /** How many quorum locks the masters' watchdogs keep renewing. */
    @Override
    public int renewingCount() {
        int renewing = 0;
        for (QuorumHold hold : this.parts.holds.values()) {
            if (hold.watchdog && !hold.isOver()) {
                renewing++;
            }
        }
        return renewing;
    }

    @Override
    public Duration renewalInterval() {
        return this.parts.masters.nodes.get(0).locks.renewalInterval();
    }

    /** The most member leases overdue on any one master (see {@link LockInspection#overdueRenewalCount()}). */
    @Override
    public int overdueRenewalCount() {
        int overdue = 0;
        for (QuorumNode node : this.parts.masters.nodes) {
            overdue = Math.max(overdue, node.locks.overdueRenewalCount());
        }
        return overdue;
    }

    /** Pings every master at once and needs a quorum of answers (see {@link #verifyQuorumReachable()}). */
    @Override
    public Duration ping() {
        long start = System.nanoTime();
        this.parts.masters.verifyReachable();
        return Durations.since(start);
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
        this.parts.masters.verifyReachable();
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
        this.parts.masters.verifyAccess();
    }

    /**
     * Stops the calls to the masters and each master's watchdog, writing nothing more to Redis, as if the process had
     * died: held locks expire at the end of their lease. Threads waiting for a lock stop with
     * {@link IllegalStateException}; acquiring afterwards throws it too. Releasing a handle still works.
     */
    @Override
    public void close() {
        this.parts.closed = true;
        this.parts.async.close();
        this.parts.masters.close();
    }
}
