package dev.distlock.redis.wakeup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import reactor.core.Disposable;

import dev.distlock.internal.DaemonThreads;
import dev.distlock.redis.script.LockType.WakeUp;

/**
 * Wakes this process's waiters when a lock is released. All waiters share one subscription connection (classic or
 * sharded pub/sub, see {@link ChannelSubscriber}); a key's channel is subscribed while some thread waits for it (and
 * for a short linger after, so hot keys do not churn). A release wakes one local waiter, every local waiter, or the
 * one it names, as the lock type's {@link WakeUp} says. Releases made by this process wake local waiters directly,
 * without waiting for the message to come back from Redis. When a connection comes back after a disconnect, every
 * waiter checks again, since releases published meanwhile were lost. When a Redis Cluster client sees the topology
 * change (a failover), the subscription is opened afresh, so that every channel is subscribed on its slot's current
 * master: Lettuce leaves a sharded subscription on the node where it was made, even a dead one.
 *
 * <p>Channels are unsubscribed by a daemon thread of their own, in bulk ({@value #UNSUBSCRIBE_BATCH} channels per
 * command at most), so that a slow or stalled subscription connection never delays the watchdog's renewals.
 *
 * <p>Without a subscription (the polling wait strategy, or while subscribing fails) waiters poll. A failed subscribe
 * is not retried by every waiter: retries wait a back-off ({@link SubscribeBackoff}).
 */
public final class ReleaseSubscriptions implements ChannelSubscriber.Listener, AutoCloseable {

    /** The most channels one unsubscribe command names. */
    static final int UNSUBSCRIBE_BATCH = 1000;

    /** This process's release message: its own releases were signalled locally already. */
    private final String ownMessage;

    private final ConcurrentHashMap<String, KeyWaiters> waitersByChannel = new ConcurrentHashMap<>();

    private final SubscriptionConnection connection;

    private final @Nullable Disposable reconnects;

    /** Runs the idle sweep, apart from the watchdog's thread. */
    private final ScheduledThreadPoolExecutor sweeper;

    /**
     * @param subscribers opens the subscriber on first use; null for waiters that only poll
     * @param lingerNanos how long a channel nobody waits on stays subscribed; also how often idle ones are swept
     */
    public ReleaseSubscriptions(RedisConnectionFactory connectionFactory,
            @Nullable Function<ChannelSubscriber.Listener, ChannelSubscriber> subscribers, String anchorChannel,
            String ownMessage, long lingerNanos) {
        this.ownMessage = ownMessage;
        this.connection = new SubscriptionConnection(subscribers, this, anchorChannel,
                this.waitersByChannel.values());
        this.sweeper = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("distlock-subscriptions-"));
        this.sweeper.scheduleWithFixedDelay(() -> sweepIdle(lingerNanos), lingerNanos, lingerNanos,
                TimeUnit.NANOSECONDS);
        // after the sweeper, which a topology change uses
        this.reconnects = TopologyChanges.watch(connectionFactory, this.sweeper, this::signalAll, this::resubscribe);
    }

    /** After a cluster failover: subscribes again on the slots' current masters, then wakes every waiter. */
    private void resubscribe() {
        this.connection.resubscribe();
        signalAll();
    }

    /**
     * Registers the calling thread as a waiter on a channel, subscribing to it first if needed.
     *
     * @param wakeUp whom a release on this channel wakes (the same for every waiter of one channel)
     * @param name the name a {@link WakeUp#NAMED} release message gives to wake this waiter
     */
    public Waiter startWaiting(String channel, WakeUp wakeUp, String name) {
        Waiter waiter = join(channel, wakeUp, name, null);
        if (!waiter.waiters.subscribed) {
            subscribe(waiter.waiters, false);
        }
        return waiter;
    }

    /**
     * Registers a non-blocking waiter, told of each wake-up by {@code onSignal} (on the signalling thread: it must not
     * block). Subscribing, which waits for Redis, runs on {@code subscriber}; the waiter is signalled once it is
     * subscribed, so that it checks for a release it could have missed meanwhile.
     */
    public Waiter startWaiting(String channel, WakeUp wakeUp, String name, Runnable onSignal, Executor subscriber) {
        Waiter waiter = join(channel, wakeUp, name, onSignal);
        if (!waiter.waiters.subscribed && this.connection.mayTry()) {
            subscriber.execute(() -> {
                subscribe(waiter.waiters, false);
                if (waiter.waiters.subscribed) {
                    waiter.wake();
                }
            });
        }
        return waiter;
    }

    private Waiter join(String channel, WakeUp wakeUp, String name, @Nullable Runnable onSignal) {
        while (true) {
            KeyWaiters waiters = this.waitersByChannel.computeIfAbsent(channel,
                    newChannel -> new KeyWaiters(newChannel, wakeUp));
            if (waiters.join()) {
                return new Waiter(waiters, new KeyWaiters.Entry(name, onSignal), () -> subscribe(waiters, true));
            }
            // closed by the sweeper between lookup and join: take the fresh one
        }
    }

    /**
     * Wakes every local waiter, so that each checks the lock again: after the pub/sub connection came back from a
     * disconnect, during which release messages may have been lost.
     */
    public void signalAll() {
        for (KeyWaiters waiters : this.waitersByChannel.values()) {
            waiters.signalEveryone();
        }
    }

    /** Wakes local waiters for a lock this process released: one or all of them ({@link WakeUp#NAMED}: none). */
    public void signalLocal(String channel) {
        signalLocal(channel, 1);
    }

    /**
     * Wakes local waiters for a lock this process released: as {@link #signalLocal(String)}, or {@code permits} of
     * them ({@link WakeUp#PERMITS}).
     */
    public void signalLocal(String channel, int permits) {
        KeyWaiters waiters = this.waitersByChannel.get(channel);
        if (waiters != null) {
            waiters.signalReleased(permits);
        }
    }

    @Override
    public void message(String channel, String message) {
        KeyWaiters waiters = this.waitersByChannel.get(channel);
        if (waiters == null) {
            return;
        }
        if (waiters.wakeUp == WakeUp.NAMED) {
            waiters.signalNamed(message);
            return;
        }
        // A semaphore's release says how many permits it freed after its sender: '<client id> <permits>'
        int space = message.indexOf(' ');
        String sender = (space < 0) ? message : message.substring(0, space);
        if (!sender.equals(this.ownMessage)) { // own releases were signalled locally
            waiters.signalReleased((space < 0) ? KeyWaiters.UNKNOWN : permitsFreed(message.substring(space + 1)));
        }
    }

    /** The permits a release message names; {@link KeyWaiters#UNKNOWN} for anything else. */
    private static int permitsFreed(String text) {
        try {
            return Math.max(1, Integer.parseInt(text));
        }
        catch (NumberFormatException ex) {
            return KeyWaiters.UNKNOWN;
        }
    }

    /** The waiters subscribe again (to the slot's new shard), and check the lock meanwhile. */
    @Override
    public void dropped(String channel) {
        KeyWaiters waiters = this.waitersByChannel.get(channel);
        if (waiters != null && waiters.subscribed) {
            waiters.subscribed = false;
            waiters.signalEveryone();
        }
    }

    /** Subscribes to the waiters' channel; see {@link SubscriptionConnection#subscribe}. */
    void subscribe(KeyWaiters waiters, boolean retry) {
        this.connection.subscribe(waiters, retry);
    }

    /**
     * Opens the subscription now, so that an unreachable Redis or a missing SUBSCRIBE permission shows at once rather
     * than as slower, polling waiters. Does nothing for waiters that only poll.
     *
     * @throws RuntimeException the Redis client's error
     */
    public void open() {
        this.connection.open();
    }

    /**
     * Forgets channels nobody has waited on for {@code lingerNanos}, unsubscribing from them in bulk: at most
     * {@value #UNSUBSCRIBE_BATCH} per command, each batch under the subscriptions' lock.
     */
    void sweepIdle(long lingerNanos) {
        long now = System.nanoTime();
        List<KeyWaiters> idle = new ArrayList<>();
        for (KeyWaiters waiters : this.waitersByChannel.values()) {
            if (waiters.idleSince(now, lingerNanos)) {
                idle.add(waiters);
            }
        }
        for (int from = 0; from < idle.size(); from += UNSUBSCRIBE_BATCH) {
            this.connection.unsubscribeIdle(idle.subList(from, Math.min(from + UNSUBSCRIBE_BATCH, idle.size())), now,
                    lingerNanos, this.waitersByChannel);
        }
    }

    @Override
    public void close() {
        this.sweeper.shutdownNow();
        if (this.reconnects != null) {
            this.reconnects.dispose();
        }
        this.connection.close();
    }
}
