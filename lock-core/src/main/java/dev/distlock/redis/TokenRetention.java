package dev.distlock.redis;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The default for how long a freed lock keeps its hash (last fencing token, the chain of released grants) and a
 * released reader its marker: long enough to recognise a retried release, no longer. A release is tried
 * {@code attempts} times, each bounded by the client's command timeout, with 50 and 100 ms between tries; the last try
 * reaches Redis at most that long after the first freed the lock. The fencing token needs no retention: a new grant's
 * token is at least Redis's clock in microseconds, which passed every earlier token unless the clock stepped back.
 */
final class TokenRetention {

    /** A floor, so that a very short command timeout still leaves room for a slow Redis. */
    static final Duration MINIMUM = Duration.ofSeconds(10);

    /** Without a Lettuce factory, whose command timeout is unknown. */
    static final Duration UNKNOWN_TIMEOUT = Duration.ofMinutes(5);

    private TokenRetention() {
    }

    static Duration forRetries(RedisConnectionFactory factory, int attempts) {
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            return UNKNOWN_TIMEOUT;
        }
        Duration window = Duration.ofMillis(lettuce.getTimeout()).multipliedBy(attempts).plusSeconds(1);
        return (window.compareTo(MINIMUM) < 0) ? MINIMUM : window;
    }
}
