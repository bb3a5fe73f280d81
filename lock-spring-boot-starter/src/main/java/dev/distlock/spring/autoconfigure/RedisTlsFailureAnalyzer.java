package dev.distlock.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link RedisTlsException} at startup: why TLS verification failed, and the property to fix. */
final class RedisTlsFailureAnalyzer extends AbstractFailureAnalyzer<RedisTlsException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RedisTlsException cause) {
        return new FailureAnalysis("TLS to Redis failed for distlock: " + cause.reason(),
                "Check the SSL bundle named by " + cause.property() + ": it must trust the certificate authority "
                        + "that signed Redis's certificate (and, when Redis demands client certificates, hold a "
                        + "client certificate and key Redis accepts), and Redis must serve TLS on that port.",
                cause);
    }
}
