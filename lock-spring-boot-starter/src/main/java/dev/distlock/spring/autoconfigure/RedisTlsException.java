package dev.distlock.spring.autoconfigure;

import java.security.GeneralSecurityException;

import javax.net.ssl.SSLException;

import org.jspecify.annotations.Nullable;

/**
 * TLS to Redis failed at startup: the server's certificate is not trusted by the SSL bundle (a wrong CA, an expired
 * or mismatched certificate), the server refused the client's certificate or got none, or one side does not speak
 * TLS. A configuration error, so startup stops, naming the property that holds the SSL bundle and keeping the TLS
 * reason. An unreachable Redis is not this error; startup goes on with a WARN then.
 * {@link RedisTlsFailureAnalyzer} reports it.
 */
public class RedisTlsException extends IllegalStateException {

    private final String reason;

    private final String property;

    RedisTlsException(String reason, String property, Throwable cause) {
        super("TLS to Redis failed (" + reason + "). Check " + property
                + ": its SSL bundle must trust the authority that signed the server's certificate and, if the server "
                + "demands client certificates, hold one it accepts.", cause);
        this.reason = reason;
        this.property = property;
    }

    /**
     * The TLS failure found in {@code failure}, its causes or their suppressed exceptions (an {@link SSLException},
     * such as a handshake failure, or a certificate error), as its message, or null when TLS did not fail.
     */
    static @Nullable String tlsFailure(Throwable failure) {
        Throwable tls = Causes.find(failure,
                (cause) -> cause instanceof SSLException || cause instanceof GeneralSecurityException);
        if (tls == null) {
            return null;
        }
        return (tls.getMessage() != null) ? tls.getMessage() : tls.getClass().getSimpleName();
    }

    /** Why TLS failed, such as {@code PKIX path building failed: ...} for a server certificate not trusted. */
    public String reason() {
        return this.reason;
    }

    /** The property that names the SSL bundle to fix. */
    public String property() {
        return this.property;
    }
}
