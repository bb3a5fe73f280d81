package dev.distlock.redis;

import java.util.Collection;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import reactor.core.Disposable;

import dev.distlock.LeaseLostException;
import dev.distlock.LockMode;
import dev.distlock.redis.lease.Hold;

/**
 * When a Lettuce connection (re)connects, checks in Redis that every lock the service holds is still there, and
 * reports the ones that are not as lost at once, instead of at their next renewal or release: a restart without the
 * data, a failover to a replica that had not received the lock, an eviction. One read per held lock, off the caller's
 * and the watchdog's threads; a reconnect to the same process that kept everything reports nothing. Also re-checks
 * the eviction policy, which a new process may not share.
 */
final class ReconnectCheck implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(ReconnectCheck.class);

    private final StringRedisTemplate redis;

    private final Supplier<Collection<Hold>> holds;

    private final BiConsumer<Hold, LeaseLostException> lose;

    private final Executor executor;

    private final EvictionGuard evictionGuard;

    /** A check is queued: further connection events until it starts need no check of their own. */
    private final AtomicBoolean queued = new AtomicBoolean();

    private final @Nullable Disposable subscription;

    ReconnectCheck(StringRedisTemplate redis, Supplier<Collection<Hold>> holds,
            BiConsumer<Hold, LeaseLostException> lose, Executor executor, EvictionGuard evictionGuard) {
        this.redis = redis;
        this.holds = holds;
        this.lose = lose;
        this.executor = executor;
        this.evictionGuard = evictionGuard;
        this.subscription = subscribe(redis.getRequiredConnectionFactory());
    }

    private @Nullable Disposable subscribe(RedisConnectionFactory factory) {
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            logger.debug("Not a Lettuce connection factory: held locks are checked at renewal and release only");
            return null;
        }
        try {
            return lettuce.getNativeClient().getResources().eventBus().get()
                .filter(ConnectionActivatedEvent.class::isInstance)
                .subscribe(event -> schedule(), failure -> logger.debug("Connection events ended", failure));
        }
        catch (RuntimeException ex) { // a factory not started yet has no client
            logger.warn("Could not follow Redis connection events (" + ex.getMessage() + "): held locks lost in a "
                    + "Redis restart or failover are reported at their next renewal or release only");
            return null;
        }
    }

    /** Queues one check unless one is queued already. */
    void schedule() {
        if (this.queued.compareAndSet(false, true)) {
            try {
                this.executor.execute(this::run);
            }
            catch (RuntimeException ex) { // closed, or the queue is full
                this.queued.set(false);
            }
        }
    }

    private void run() {
        this.queued.set(false);
        int lost = 0;
        for (Hold hold : this.holds.get()) {
            if (hold.isOver() || !hold.isValid()) {
                continue;
            }
            boolean held;
            try {
                held = stillHeld(hold);
            }
            catch (DataAccessException ex) {
                logger.debug("Could not check lock '" + hold.key() + "' after a reconnect; renewal checks it", ex);
                continue;
            }
            // a release closes the hold before it frees the lock in Redis: a hold released meanwhile is over by now
            if (!held && !hold.isOver()) {
                lost++;
                this.lose.accept(hold, new LeaseLostException(hold.key(), "Lock '" + hold.key() + "' was gone from "
                        + "Redis when the connection came back: Redis restarted without its data, failed over to a "
                        + "replica that had not received it, or evicted it"));
            }
        }
        if (lost > 0) {
            logger.warn(lost + " held lock(s) were gone from Redis after a reconnect; their holders were told");
        }
        this.evictionGuard.check(false);
    }

    private boolean stillHeld(Hold hold) {
        // the lock hash, or for a reader the readers set, for a semaphore holder the leases set
        String name = hold.type().keys(hold).get(0);
        if (hold.holdKey().mode() == LockMode.READ || hold.holdKey().mode().isSemaphore()) {
            return this.redis.opsForZSet().score(name, hold.ownerToken()) != null;
        }
        return hold.ownerToken().equals(PlainLock.readOwner(this.redis, name));
    }

    @Override
    public void close() {
        if (this.subscription != null) {
            this.subscription.dispose();
        }
    }
}
