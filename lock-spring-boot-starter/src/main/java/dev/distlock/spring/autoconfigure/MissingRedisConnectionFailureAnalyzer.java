package dev.distlock.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link MissingRedisConnectionException} at startup with what to add or configure. */
final class MissingRedisConnectionFailureAnalyzer extends AbstractFailureAnalyzer<MissingRedisConnectionException> {

    static final String ACTION = "Add the spring-boot-starter-data-redis dependency and configure spring.data.redis "
            + "(for example spring.data.redis.host and spring.data.redis.port, or spring.data.redis.url), define a "
            + "RedisConnectionFactory bean (mark one @Primary if there are several), or set distlock.enabled=false.";

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MissingRedisConnectionException cause) {
        return new FailureAnalysis(cause.description(), ACTION, cause);
    }
}
