package dev.distlock.spring.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of lock failures as HTTP responses, under {@code distlock.web.*}. */
@ConfigurationProperties(DistributedLockWebProperties.PREFIX)
public class DistributedLockWebProperties {

    /** The prefix of these properties. */
    public static final String PREFIX = "distlock.web";

    /**
     * Whether lock failures reaching a Spring MVC or WebFlux controller are answered with problem details: 409 for a
     * lock held past the wait limit or a lost lease, 503 when Redis cannot be reached.
     */
    private boolean problemDetails = true;

    /** The Retry-After sent with a 409 for a held lock and with a 503, in whole seconds (rounded up). */
    private Duration retryAfter = Duration.ofSeconds(1);

    public boolean isProblemDetails() {
        return this.problemDetails;
    }

    public void setProblemDetails(boolean problemDetails) {
        this.problemDetails = problemDetails;
    }

    public Duration getRetryAfter() {
        return this.retryAfter;
    }

    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }
}
