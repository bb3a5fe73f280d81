package dev.distlock.redis.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LockHandle;
import dev.distlock.LockUnavailableException;
import dev.distlock.internal.DaemonThreads;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.quorum.Fanout.Answer;

/**
 * The independent masters of a {@link QuorumLockService} and the pool of daemon threads that calls them in parallel:
 * fan-outs, best-effort releases, and the startup checks. A call the pool cannot take (all {@value #MAX_THREADS}
 * threads busy, or closed) runs on the calling thread.
 */
final class QuorumMasters {

    /** Pings a master gets before it counts as unreachable at startup. */
    static final int PING_ATTEMPTS = 3;

    private static final int MAX_THREADS = 256;

    private static final Log logger = LogFactory.getLog(QuorumMasters.class);

    final List<QuorumNode> nodes;

    /** N/2+1. */
    final int quorum;

    final Duration nodeTimeout;

    private final ThreadPoolExecutor executor = new ThreadPoolExecutor(0, MAX_THREADS, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), DaemonThreads.named("distlock-quorum-"));

    QuorumMasters(List<QuorumNode> nodes, Duration nodeTimeout) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.nodeTimeout = nodeTimeout;
    }

    long nodeTimeoutNanos() {
        return this.nodeTimeout.toNanos();
    }

    /** Calls every master at once, in master order. */
    <T> Fanout<T> callEach(Function<QuorumNode, T> call) {
        List<Supplier<T>> calls = new ArrayList<>(this.nodes.size());
        for (QuorumNode node : this.nodes) {
            calls.add(() -> call.apply(node));
        }
        return Fanout.start(this.executor, calls);
    }

    /** Calls the master of every member at once, in member order. */
    <T> Fanout<T> callMembers(List<QuorumMember> members, Function<QuorumMember, T> call) {
        List<Supplier<T>> calls = new ArrayList<>(members.size());
        for (QuorumMember member : members) {
            calls.add(() -> call.apply(member));
        }
        return Fanout.start(this.executor, calls);
    }

    /** Releases members no quorum holder keeps, all at once, ignoring failures: those expire with their lease. */
    void releaseAll(List<QuorumMember> members) {
        callMembers(members, member -> {
            releaseQuietly(member.handle());
            return null;
        }).awaitUninterruptibly(Long.MAX_VALUE);
    }

    /** Releases a member granted after its attempt gave up waiting for it. */
    static void releaseLate(Optional<LockHandle> grant) {
        grant.ifPresent(QuorumMasters::releaseQuietly);
    }

    private static void releaseQuietly(LockHandle member) {
        try {
            member.release();
        }
        catch (RuntimeException ex) {
            logger.debug("Could not release member lock " + KeyText.quote(member.key())
                    + "; it expires with its lease", ex);
        }
    }

    /** See {@link QuorumLockService#verifyQuorumReachable()}. */
    void verifyReachable() {
        List<Answer<@Nullable Void>> answers = this.<@Nullable Void>callEach(node -> {
            for (int attempt = 1;; attempt++) {
                try {
                    node.ping();
                    return null;
                }
                catch (RuntimeException ex) {
                    if (attempt == PING_ATTEMPTS) {
                        throw ex;
                    }
                }
            }
        }).awaitUninterruptibly(Long.MAX_VALUE).collect(ignored -> {
        });
        requireQuorum(RedisLockService.ACCESS_CHECK_KEY, "Too few Redis masters answer PING", answers);
    }

    /** See {@link QuorumLockService#verifyAccess()}. */
    void verifyAccess() {
        List<Answer<@Nullable Void>> answers = this.<@Nullable Void>callEach(node -> {
            try {
                node.locks.verifyAccess();
            }
            catch (IllegalStateException ex) {
                throw new IllegalStateException("Redis master " + node + ": " + ex.getMessage(), ex);
            }
            return null;
        }).awaitUninterruptibly(Long.MAX_VALUE).collect(ignored -> {
        });
        for (Answer<@Nullable Void> answer : answers) {
            if (answer.failure() instanceof IllegalStateException refused) {
                throw refused;
            }
        }
        requireQuorum(RedisLockService.ACCESS_CHECK_KEY, "Too few Redis masters can be reached to check permissions", answers);
    }

    /**
     * Throws when fewer than a quorum of the answers (one per master, in master order) came back without failure.
     *
     * @throws LockUnavailableException whose message starts with {@code problem} and names each master that failed
     */
    void requireQuorum(String key, String problem, List<? extends Answer<?>> answers) {
        List<String> failed = new ArrayList<>();
        List<RuntimeException> causes = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            Answer<?> answer = answers.get(i);
            if (!answer.succeeded()) {
                failed.add(this.nodes.get(i) + " (" + describe(answer) + ")");
                if (answer.failure() != null) {
                    causes.add(answer.failure());
                }
            }
        }
        int answered = answers.size() - failed.size();
        if (answered >= this.quorum) {
            return;
        }
        LockUnavailableException failure = new LockUnavailableException(key, problem + ": only " + answered + " of "
                + answers.size() + " Redis masters answered, " + this.quorum + " needed. Failed: "
                + String.join(", ", failed), causes.isEmpty() ? new TimeoutException(
                        "No answer within the node timeout of " + this.nodeTimeout.toMillis() + "ms")
                        : causes.get(0));
        causes.stream().skip(1).forEach(failure::addSuppressed);
        throw failure;
    }

    private String describe(Answer<?> answer) {
        RuntimeException failure = answer.failure();
        if (failure == null) {
            return "no answer within " + this.nodeTimeout.toMillis() + "ms";
        }
        Throwable root = failure;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return (root.getMessage() != null) ? root.getMessage() : root.getClass().getSimpleName();
    }

    /** Closes each master's service and lets the pool finish the calls it has (releases, for instance). */
    void close() {
        this.nodes.forEach(node -> node.locks.close());
        this.executor.shutdown();
    }
}
