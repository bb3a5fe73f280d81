package dev.distlock.spring.autoconfigure;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

import dev.distlock.LockUnavailableException;
import dev.distlock.redis.RedisLockService;

/**
 * Starts and stops the auto-configured {@link RedisLockService} in step with Redis and the web server: it starts after
 * the Redis connection factory (phase 0), checking Redis's permissions before the web server takes requests, and stops
 * after the web server has drained them but before the connection factory closes its connections.
 */
final class LockServiceLifecycle implements SmartLifecycle {

    /** After the connection factory (phase 0), before the web server (phases near {@link #DEFAULT_PHASE}). */
    static final int PHASE = 1024;

    private static final Log logger = LogFactory.getLog(LockServiceLifecycle.class);

    private final ObjectProvider<RedisLockService> lockServices;

    private final boolean verifyAccess;

    /** The properties that hold the credentials of the lock service's Redis connection. */
    static final String CREDENTIAL_PROPERTIES = "spring.data.redis.password and spring.data.redis.username (or the "
            + "credentials in spring.data.redis.url; with a RedisConnectionFactory bean of your own, its credentials)";

    /** The property that names the SSL bundle of the lock service's Redis connection. */
    static final String SSL_PROPERTY = "spring.data.redis.ssl.bundle (with a RedisConnectionFactory bean of your own, "
            + "its SSL options)";

    /**
     * Lettuce's words when a connection closed during its handshake ("closed prematurely", or its handshake handler
     * already gone from the closed channel's pipeline when the connect completes). Redis closes none for refused
     * credentials, but Lettuce closes the connection itself when its handshake is refused, and its own report of the
     * close can win the race with Redis's answer (WRONGPASS, NOAUTH), which is then lost: such a check is tried again,
     * up to {@link #HANDSHAKE_TRIES} times, rather than taken for an unreachable Redis.
     */
    private static final List<String> CLOSED_EARLY = List.of("Connection closed prematurely",
            "RedisHandshakeHandler not registered");

    private static final int HANDSHAKE_TRIES = 5;

    private volatile boolean running;

    /** Manages the context's {@link RedisLockService}, if it has exactly one. */
    LockServiceLifecycle(ObjectProvider<RedisLockService> lockServices, boolean verifyAccess) {
        this.lockServices = lockServices;
        this.verifyAccess = verifyAccess;
    }

    /**
     * Checks Redis's permissions when configured to.
     *
     * @throws IllegalStateException when Redis's user lacks a permission the locks need, which stops startup
     * @throws RedisCredentialsException when Redis refuses the credentials, which stops startup too
     * @throws RedisTlsException when TLS to Redis fails (say the server's certificate is not trusted), which stops
     * startup too
     */
    @Override
    public void start() {
        RedisLockService lockService = this.lockServices.getIfUnique();
        if (lockService != null && this.verifyAccess) {
            verify(lockService, HANDSHAKE_TRIES);
        }
        this.running = true;
    }

    private static void verify(RedisLockService lockService, int tries) {
        try {
            lockService.verifyAccess();
        }
        catch (LockUnavailableException ex) {
            String refusal = RedisCredentialsException.refusal(ex);
            if (refusal != null) {
                throw new RedisCredentialsException(refusal, CREDENTIAL_PROPERTIES, ex);
            }
            String tlsFailure = RedisTlsException.tlsFailure(ex);
            if (tlsFailure != null) {
                throw new RedisTlsException(tlsFailure, SSL_PROPERTY, ex);
            }
            if (tries > 1 && Causes.find(ex, LockServiceLifecycle::closedEarly) != null) {
                verify(lockService, tries - 1); // perhaps refused at the handshake: ask again for Redis's words
                return;
            }
            logger.warn("Could not check Redis permissions for distlock at startup; locks will report Redis "
                    + "as unavailable until it answers: " + causes(ex));
        }
    }

    private static boolean closedEarly(Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        return CLOSED_EARLY.stream().anyMatch(message::contains);
    }

    /** The failure's message and its causes' ("a <- b <- c"): what Redis or the client said may lie deep. */
    private static String causes(Throwable failure) {
        StringBuilder text = new StringBuilder(String.valueOf(failure.getMessage()));
        for (Throwable cause = failure.getCause(); cause != null && cause != cause.getCause();
                cause = cause.getCause()) {
            text.append(" <- ").append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage());
        }
        return text.toString();
    }

    /** Stops renewing and closes the release subscription while the Redis connections are still open. */
    @Override
    public void stop() {
        this.running = false;
        RedisLockService lockService = this.lockServices.getIfUnique();
        if (lockService != null) {
            lockService.close(); // closing again at destruction does nothing
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
