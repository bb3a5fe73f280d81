package dev.distlock.test;

/**
 * Thrown by {@link RedisNode#call(String...)} when the server answers with an error reply.
 * The message is the server's error text, e.g. {@code "ERR unknown command 'FOO'..."} or
 * {@code "NOAUTH Authentication required."}.
 */
public class RedisCallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RedisCallException(String serverMessage) {
        super(serverMessage);
    }
}
