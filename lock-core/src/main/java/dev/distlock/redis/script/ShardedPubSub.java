package dev.distlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.DecoratedRedisConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.internal.DaemonThreads;

/**
 * Decides whether release messages travel by sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}, Redis 7 and
 * later). On a Redis Cluster a classic {@code PUBLISH} reaches every node; a sharded message stays on the shard that
 * owns the channel's slot, which is the lock's slot. Publishers and subscribers must agree, so every service decides
 * alike: sharded exactly when the connection is a Lettuce cluster connection and Redis accepts {@code SPUBLISH}
 * there. Standalone and Sentinel connections keep classic pub/sub.
 *
 * <p>The probe is a blocking call, made when the service is built ({@link #decide()}). It must never run on a Netty
 * thread (Lettuce's I/O threads, where non-blocking calls complete): that thread would wait for a reply only it can
 * read, until the command timeout. So when Redis could not be asked at build, the first call on another thread asks;
 * a call on a Netty thread meanwhile starts the probe on a thread of its own and publishes with the classic
 * {@code PUBLISH}, which every Redis accepts: its release succeeds, and a waiter of another service subscribed by
 * {@code SSUBSCRIBE} misses that one message and looks again at its next re-check (at most 5 s later), as after any
 * lost message. Subscribing never happens on a Netty thread, so subscribers always wait for the answer.
 */
public final class ShardedPubSub {

    private static final Log logger = LogFactory.getLog(ShardedPubSub.class);

    /** The template to probe with; null when the connection is no cluster connection. */
    private final @Nullable StringRedisTemplate cluster;

    private final byte[] probeChannel;

    private volatile @Nullable Boolean enabled;

    /** Whether a call on a Netty thread has started the probe on a thread of its own and it has not ended yet. */
    private final AtomicBoolean probing = new AtomicBoolean();

    /**
     * @param probeChannel a channel of the service's own, to publish the probe's empty message on
     */
    public ShardedPubSub(StringRedisTemplate redis, String probeChannel) {
        boolean isCluster = redis.getRequiredConnectionFactory() instanceof LettuceConnectionFactory lettuce
                && lettuce.isClusterAware();
        this.cluster = isCluster ? redis : null;
        this.probeChannel = probeChannel.getBytes(StandardCharsets.UTF_8);
        if (!isCluster) {
            this.enabled = false;
        }
    }

    /**
     * Asks Redis now, on the calling thread (the service's build): a Redis that cannot be reached leaves the question
     * to the first call that may block. Does nothing on a Netty thread.
     */
    public void decide() {
        if (this.enabled == null && !onNettyThread()) {
            try {
                this.enabled = probe();
            }
            catch (DataAccessException ex) {
                logger.debug("Could not ask Redis whether it has sharded pub/sub; the first call asks again", ex);
            }
        }
    }

    /**
     * Whether releases are published with {@code SPUBLISH} and subscribed with {@code SSUBSCRIBE}. Blocks for the
     * answer only when Redis could not be asked before, and never on a Netty thread: there it answers {@code false}
     * (classic pub/sub) until the answer is in; see the class comment.
     *
     * @throws DataAccessException when Redis could not be asked; the next call asks again
     */
    public boolean enabled() {
        Boolean decided = this.enabled;
        if (decided != null) {
            return decided;
        }
        if (onNettyThread()) {
            if (this.probing.compareAndSet(false, true)) {
                DaemonThreads.named("distlock-pubsub-probe-").newThread(() -> {
                    try {
                        decide();
                    }
                    finally {
                        this.probing.set(false);
                    }
                }).start();
            }
            return false;
        }
        decided = probe();
        this.enabled = decided;
        return decided;
    }

    /** The command the release scripts publish with: {@code SPUBLISH} or {@code PUBLISH}. */
    public String publishCommand() {
        return enabled() ? "SPUBLISH" : "PUBLISH";
    }

    /**
     * Whether the caller runs on a Netty thread: one of Lettuce's I/O (or computation) threads, which Netty makes as
     * {@code FastThreadLocalThread}s. By name, since this module does not read Netty's.
     */
    private static boolean onNettyThread() {
        for (Class<?> type = Thread.currentThread().getClass(); type != Thread.class; type = type.getSuperclass()) {
            if (type.getName().equals("io.netty.util.concurrent.FastThreadLocalThread")) {
                return true;
            }
        }
        return false;
    }

    private boolean probe() {
        StringRedisTemplate redis = this.cluster;
        if (redis == null) {
            return false;
        }
        try {
            // routed by the channel's slot, like the release scripts' SPUBLISH
            redis.execute((RedisCallback<Object>) connection -> lettuce(connection).execute("SPUBLISH",
                    new IntegerOutput<>(ByteArrayCodec.INSTANCE), this.probeChannel, new byte[0]), true);
            logger.debug("Release messages use sharded pub/sub (SPUBLISH and SSUBSCRIBE)");
            return true;
        }
        catch (DataAccessException ex) {
            String refusal = refusal(ex);
            if (refusal == null) {
                throw ex;
            }
            logger.info("Redis Cluster refused SPUBLISH, so release messages use classic pub/sub, which every node "
                    + "receives (sharded pub/sub needs Redis 7 and the ACL rules +spublish +ssubscribe "
                    + "+sunsubscribe): " + refusal);
            return false;
        }
    }

    /**
     * The Lettuce connection a callback gets: Spring Data Redis 3.5's {@link StringRedisTemplate} hands it over
     * decorated (a {@code DefaultStringRedisConnection}), 4.x as it is.
     */
    private static LettuceConnection lettuce(RedisConnection connection) {
        return (LettuceConnection) ((connection instanceof DecoratedRedisConnection decorated)
                ? decorated.getDelegate() : connection);
    }

    /** Redis's answer when it does not know SPUBLISH or the user may not run it, else null. */
    private static @Nullable String refusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && (message.contains("unknown command") || message.contains("NOPERM"))) {
                return message;
            }
        }
        return null;
    }
}
