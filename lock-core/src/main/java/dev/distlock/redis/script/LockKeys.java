package dev.distlock.redis.script;

import dev.distlock.KeyText;
import dev.distlock.LockService;

/**
 * The Redis names of a lock. Every name of one lock carries the same hash tag, {@code {key}}, so that they all live
 * in one Redis Cluster slot: {@code <prefix>:{<key>}:lock} for the lock (a hash, see acquire.lua)
 * and {@code <prefix>:{<key>}:released} for its release channel.
 */
public final class LockKeys {

    private final String prefix;

    public LockKeys(String prefix) {
        this.prefix = checkPrefix(prefix);
    }

    /** Checks a service's maximum key length: from 1 to {@link LockService#MAX_KEY_LENGTH}. */
    public static int checkMaxKeyLength(int maxKeyLength) {
        if (maxKeyLength < 1 || maxKeyLength > LockService.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("maxKeyLength must be between 1 and " + LockService.MAX_KEY_LENGTH
                    + ", but was " + maxKeyLength);
        }
        return maxKeyLength;
    }

    public static String checkPrefix(String prefix) {
        if (prefix == null || prefix.isBlank()) {
            throw new IllegalArgumentException("keyPrefix must not be null or blank");
        }
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0 || hasControlCharacter(prefix)) {
            throw new IllegalArgumentException(
                    "keyPrefix must not contain braces or control characters, but was " + KeyText.quote(prefix));
        }
        return prefix;
    }

    /** Checks a caller's key; the message names the argument and the rule it broke. */
    public static String checkKey(String key) {
        return checkKey(key, LockService.MAX_KEY_LENGTH);
    }

    /** {@link #checkKey(String)} with a service's own maximum length, at most {@link LockService#MAX_KEY_LENGTH}. */
    public static String checkKey(String key, int maxLength) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("key must not be blank");
        }
        if (key.length() > maxLength) {
            throw new IllegalArgumentException("key must be at most " + maxLength + " characters"
                    + (maxLength < LockService.MAX_KEY_LENGTH ? " (the service's maxKeyLength)" : "") + ", but had "
                    + key.length());
        }
        if (key.indexOf('{') >= 0 || key.indexOf('}') >= 0) {
            throw new IllegalArgumentException(
                    "key must not contain braces (they are reserved for the Redis Cluster hash tag): "
                            + KeyText.quote(key));
        }
        if (hasControlCharacter(key)) {
            throw new IllegalArgumentException("key must not contain control characters such as newlines");
        }
        return key;
    }

    private static boolean hasControlCharacter(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    public String lockHash(String key) {
        return this.prefix + ":{" + key + "}:lock";
    }

    /** {@code <prefix>:{<key>}:<suffix>}: a name of one of the key's Redis structures, in the key's slot. */
    public String name(String key, String suffix) {
        return this.prefix + ":{" + key + "}:" + suffix;
    }

    /** {@code <prefix>:{<hold's key>}:<suffix>}: a name of one of the hold's lock's Redis structures. */
    String name(LockTarget hold, String suffix) {
        return name(hold.key(), suffix);
    }

    /**
     * The freed mark of the hold's lock, whose hash is {@code <prefix>:{key}:<hashSuffix>}: the key its freeing
     * release or hand-off leaves the releasing acquisition's mark in, which a retried call recognises its first run by
     * (see end-hold.lua).
     */
    String freedMark(LockTarget hold, String hashSuffix) {
        return name(hold.key(), hashSuffix + ":freed");
    }

    public String releaseChannel(String key) {
        return this.prefix + ":{" + key + "}:released";
    }

    public String prefix() {
        return this.prefix;
    }
}
