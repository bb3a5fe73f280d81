package dev.distlock.redis.wakeup;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The pub/sub connection of a service's release subscriptions: opened on first use, subscribed to channels as
 * waiters need them, opened afresh after a cluster failover, unsubscribed from idle channels in bulk. Every change
 * runs under one lock, never taken by the message thread. A failed subscribe is retried only after a back-off
 * ({@link SubscribeBackoff}); waiters poll meanwhile.
 */
final class SubscriptionConnection {

    private static final Log logger = LogFactory.getLog(SubscriptionConnection.class);

    /** Opens the subscriber on first use; null for the polling wait strategy, which never subscribes. */
    private final @Nullable Function<ChannelSubscriber.Listener, ChannelSubscriber> subscribers;

    private final ChannelSubscriber.Listener listener;

    /** Subscribed for the connection's whole life, so that the subscription stays open between waits. */
    private final String anchorChannel;

    /** The channels waited on, to subscribe again when the connection is opened afresh. */
    private final Collection<KeyWaiters> waited;

    private final ReentrantLock lock = new ReentrantLock();

    private @Nullable ChannelSubscriber subscriber; // guarded by lock

    private boolean closed; // guarded by lock

    private final SubscribeBackoff backoff = new SubscribeBackoff(); // changed under lock

    SubscriptionConnection(@Nullable Function<ChannelSubscriber.Listener, ChannelSubscriber> subscribers,
            ChannelSubscriber.Listener listener, String anchorChannel, Collection<KeyWaiters> waited) {
        this.subscribers = subscribers;
        this.listener = listener;
        this.anchorChannel = anchorChannel;
        this.waited = waited;
    }

    /** Whether subscribing is worth trying now: not polling, and not backing off after a failure. */
    boolean mayTry() {
        return this.subscribers != null && !this.backoff.waiting();
    }

    /**
     * Subscribes to the waiters' channel unless that is not worth trying now. On failure the waiters poll.
     * {@code retry}: a waiter already polling tries again, only when no other thread is subscribing.
     */
    void subscribe(KeyWaiters waiters, boolean retry) {
        if (!mayTry()) {
            return;
        }
        if (retry) {
            if (!this.lock.tryLock()) {
                return;
            }
        }
        else {
            this.lock.lock();
        }
        try {
            if (waiters.subscribed || this.closed || this.backoff.waiting()) {
                return;
            }
            ChannelSubscriber current = this.subscriber;
            if (current != null && current.isOpen()) {
                current.subscribe(waiters.channel);
            }
            else {
                connect(waiters.channel);
            }
            waiters.subscribed = true;
            this.backoff.worked();
        }
        catch (RuntimeException ex) {
            this.backoff.failed(waiters.channel, ex);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Opens the connection now unless it is open (or the waiters only poll); throws the client's error. */
    void open() {
        if (this.subscribers == null) {
            return;
        }
        this.lock.lock();
        try {
            ChannelSubscriber current = this.subscriber;
            if (!this.closed && (current == null || !current.isOpen())) {
                connect();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Subscribes again, through a fresh connection, to every channel waited on: after a failover, a sharded
     * subscription stays on the node where it was made. On failure every channel counts as unsubscribed (its waiters
     * poll and subscribe again).
     */
    void resubscribe() {
        this.lock.lock();
        try {
            if (!this.closed && this.subscriber != null) {
                connect();
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not subscribe again after the cluster's topology changed; waiters poll and retry", ex);
            for (KeyWaiters waiters : this.waited) {
                waiters.subscribed = false;
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Opens a first subscription, or replaces one that died, subscribing again to every channel waited on. */
    private void connect(String... newChannels) { // under lock
        ChannelSubscriber current = this.subscriber;
        if (current == null) {
            current = this.subscribers.apply(this.listener);
            this.subscriber = current;
        }
        List<String> channels = new ArrayList<>(List.of(newChannels));
        channels.add(this.anchorChannel);
        for (KeyWaiters other : this.waited) {
            if (other.subscribed) {
                channels.add(other.channel);
            }
        }
        current.connect(channels);
    }

    /**
     * Forgets the channels of {@code idle} that are still idle, removing them from {@code registry}, and unsubscribes
     * from them in one command.
     */
    void unsubscribeIdle(List<KeyWaiters> idle, long now, long lingerNanos, Map<String, KeyWaiters> registry) {
        List<String> channels = new ArrayList<>(idle.size());
        this.lock.lock();
        try {
            for (KeyWaiters waiters : idle) {
                if (waiters.closeIfIdle(now, lingerNanos)) {
                    registry.remove(waiters.channel, waiters);
                    if (waiters.subscribed) {
                        channels.add(waiters.channel);
                    }
                }
            }
            ChannelSubscriber current = this.subscriber;
            if (!channels.isEmpty() && current != null && current.isOpen()) {
                current.unsubscribe(channels);
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not unsubscribe from " + channels.size() + " idle channel(s)", ex);
        }
        finally {
            this.lock.unlock();
        }
    }

    void close() {
        this.lock.lock();
        try {
            this.closed = true;
            if (this.subscriber != null) {
                this.subscriber.close();
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Could not close the release subscription", ex);
        }
        finally {
            this.lock.unlock();
        }
    }
}
