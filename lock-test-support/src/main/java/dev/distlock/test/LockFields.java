package dev.distlock.test;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A distlock lock key read as the hash its scripts describe: the plain lock's single-hold layout (a string, {@code
 * "<owner token> <hold id> <fence> <chain>"} then {@code " w"} once a waiting caller was refused, or {@code "<fence>
 * <chain>"} when free) stands for the hash its scripts turn it into (lock-core's to-hash.lua), so that a test asserts
 * the lock's state, not its form. lock-core's own reader of these forms is {@code dev.distlock.redis.PlainLock}; this
 * module cannot depend on lock-core (lock-core's tests depend on it), so lock-core's PlainLockTest holds the two to the
 * same readings of what the scripts leave.
 */
public final class LockFields {

    private LockFields() {
    }

    /** The fields the single-hold string {@code value} stands for. */
    public static Map<String, String> ofSingleHold(String value) {
        String[] parts = value.split(" ");
        Map<String, String> fields = new LinkedHashMap<>();
        if (parts.length == 2) {
            fields.put("fence", parts[0]);
            fields.put("chain", parts[1]);
            return fields;
        }
        if (parts.length != 4 && !(parts.length == 5 && parts[4].equals("w"))) {
            throw new IllegalArgumentException("Not a lock's single-hold string: " + value);
        }
        fields.put("owner", parts[0]);
        fields.put("holds", "1");
        fields.put(parts[0], "1");
        fields.put(parts[1], "w");
        fields.put("fence", parts[2]);
        fields.put("chain", parts[3]);
        if (parts.length == 5) {
            fields.put("waiting", "1");
        }
        return fields;
    }

    /** The fields of the lock key {@code key} on {@code node}, whichever form it has; empty when there is no key. */
    public static Map<String, String> of(RedisNode node, String key) {
        String type = node.call("TYPE", key);
        if (type.equals("string")) {
            return ofSingleHold(node.call("GET", key));
        }
        Map<String, String> fields = new LinkedHashMap<>();
        if (type.equals("hash")) {
            String[] entries = node.call("HGETALL", key).split("\n", -1);
            for (int i = 0; i + 1 < entries.length; i += 2) {
                fields.put(entries[i], entries[i + 1]);
            }
        }
        return fields;
    }
}
