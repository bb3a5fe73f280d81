package dev.distlock.spring.autoconfigure;

import java.time.Duration;

import dev.distlock.redis.RedisLockServiceBuilder;

/**
 * Local hand-offs of hot exclusive locks ({@code distlock.hand-off.*}): threads of one service waiting for the same
 * lock queue locally, and a releasing holder hands the lock to the next of them in one script call. A run of
 * hand-offs ends after {@code limit} hand-offs or {@code max-time}, whichever comes first, whenever a waiter of another
 * service was refused meanwhile, so that other services are not starved.
 */
public class HandOffProperties {

    /** Hand-offs in a row before another service's waiter gets its turn; 0 turns hand-offs off. */
    private int limit = RedisLockServiceBuilder.DEFAULT_MAX_HAND_OFFS;

    /** How long a run of hand-offs may last before another service's waiter gets its turn. */
    private Duration maxTime = RedisLockServiceBuilder.DEFAULT_MAX_HAND_OFF_TIME;

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
}
