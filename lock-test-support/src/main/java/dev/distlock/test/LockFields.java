package dev.distlock.test;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A distlock lock key read as the hash its scripts write (docs/data-layout.md, "The hash"), so that a test asserts the
 * lock's fields. lock-core's own reader of the hash is {@code dev.distlock.redis.PlainLock}; this module cannot depend
 * on lock-core (lock-core's tests depend on it), so lock-core's PlainLockTest holds the two to the same readings of
 * what the scripts leave.
 */
public final class LockFields {

    private LockFields() {
    }

    /** The fields of the lock hash {@code key} on {@code node} (HGETALL); empty when there is no key. */
    public static Map<String, String> of(RedisNode node, String key) {
        Map<String, String> fields = new LinkedHashMap<>();
        String[] entries = node.call("HGETALL", key).split("\n", -1);
        for (int i = 0; i + 1 < entries.length; i += 2) {
            fields.put(entries[i], entries[i + 1]);
        }
        return fields;
    }
}
