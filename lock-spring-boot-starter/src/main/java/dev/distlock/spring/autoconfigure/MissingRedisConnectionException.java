package dev.distlock.spring.autoconfigure;

/**
 * The application context has no unique {@code StringRedisTemplate} or {@code RedisConnectionFactory} for distlock to
 * use. {@link MissingRedisConnectionFailureAnalyzer} turns it into a startup report saying what to add.
 */
public class MissingRedisConnectionException extends IllegalStateException {

    private final String description;

    MissingRedisConnectionException(long connectionFactoryCount) {
        this(describe(connectionFactoryCount));
    }

    private MissingRedisConnectionException(String description) {
        super(description + " " + MissingRedisConnectionFailureAnalyzer.ACTION);
        this.description = description;
    }

    private static String describe(long connectionFactoryCount) {
        String found = (connectionFactoryCount == 0) ? "no StringRedisTemplate or RedisConnectionFactory bean"
                : connectionFactoryCount + " RedisConnectionFactory beans and none of them is primary";
        return "distlock needs a Redis connection, but the application context has " + found + ".";
    }

    /** What is missing, without the advice. */
    public String description() {
        return this.description;
    }
}
