package dev.distlock.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link RedisCredentialsException} at startup: Redis's refusal, and the properties to fix. */
final class RedisCredentialsFailureAnalyzer extends AbstractFailureAnalyzer<RedisCredentialsException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RedisCredentialsException cause) {
        return new FailureAnalysis("Redis refused distlock's credentials: " + cause.serverReason(),
                "Fix " + cause.properties() + ", or set distlock.verify-access-on-startup=false to start without "
                        + "checking Redis (every lock call then fails until Redis accepts the credentials).",
                cause);
    }
}
