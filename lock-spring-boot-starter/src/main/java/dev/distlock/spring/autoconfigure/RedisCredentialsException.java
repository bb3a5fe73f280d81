package dev.distlock.spring.autoconfigure;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Redis refused distlock's credentials at startup (WRONGPASS, NOAUTH, an unknown or disabled user): a configuration
 * error, so startup stops, naming the properties to fix and keeping the server's words. An unreachable Redis is not
 * this error; startup goes on with a WARN then. {@link RedisCredentialsFailureAnalyzer} reports it.
 */
public class RedisCredentialsException extends IllegalStateException {

    private final String serverReason;

    private final String properties;

    RedisCredentialsException(String serverReason, String properties, Throwable cause) {
        super("Redis refused distlock's credentials (" + serverReason + "). Fix " + properties + ".", cause);
        this.serverReason = serverReason;
        this.properties = properties;
    }

    /**
     * The server's refusal found in {@code failure}, its causes or their suppressed exceptions, or null when the
     * failure is not a refusal of the credentials.
     */
    static @Nullable String refusal(Throwable failure) {
        Throwable refusal = Causes.find(failure,
                (cause) -> cause.getMessage() != null && isCredentialRefusal(cause.getMessage()));
        return (refusal != null) ? refusal.getMessage() : null;
    }

    private static boolean isCredentialRefusal(String message) {
        String upper = message.toUpperCase(Locale.ROOT);
        return upper.contains("WRONGPASS") || upper.contains("NOAUTH")
                || upper.contains("INVALID USERNAME-PASSWORD PAIR")
                || upper.contains("CALLED WITHOUT ANY PASSWORD CONFIGURED");
    }

    /** What Redis answered, such as {@code WRONGPASS invalid username-password pair or user is disabled.} */
    public String serverReason() {
        return this.serverReason;
    }

    /** The properties that hold the refused credentials. */
    public String properties() {
        return this.properties;
    }
}
