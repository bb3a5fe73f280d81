package dev.distlock.spring.autoconfigure;

import java.time.Duration;

import org.springframework.validation.Errors;

/**
 * Local hand-offs of hot exclusive locks ({@code distlock.hand-off.*}): threads of one service waiting for the same
 * lock queue locally, and a releasing holder hands the lock to the next of them in one script call. A run of
 * hand-offs ends after {@code limit} hand-offs or {@code max-time}, whichever comes first, whenever a waiter of another
 * service was refused meanwhile, so that other services are not starved.
 */
public class HandOffProperties {

    /** Hand-offs in a row before another service's waiter gets its turn; 0 turns hand-offs off. */
    private int limit = 16;

    /** How long a run of hand-offs may last before another service's waiter gets its turn. */
    private Duration maxTime = Duration.ofMillis(10);

    public int getLimit() {
        return this.limit;
    }

    public void setLimit(int limit) {
        this.limit = limit;
    }

    public Duration getMaxTime() {
        return this.maxTime;
    }

    public void setMaxTime(Duration maxTime) {
        this.maxTime = maxTime;
    }

    void validate(Errors errors) {
        if (this.limit < 0) {
            errors.rejectValue("handOff.limit", "distlock.invalid",
                    DistributedLockProperties.PREFIX + ".hand-off.limit must be zero or positive, but was "
                            + this.limit);
        }
        if (this.maxTime == null || this.maxTime.isNegative() || this.maxTime.isZero()) {
            errors.rejectValue("handOff.maxTime", "distlock.invalid", DistributedLockProperties.PREFIX
                    + ".hand-off.max-time must be positive, but was " + HumanDurations.format(this.maxTime));
        }
    }
}
