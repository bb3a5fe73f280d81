package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Lock names: the low-cardinality labels that metrics and traces use instead of keys, which may hold user ids. See
 * {@link LockOptions#withName(String)} for the rules.
 */
final class LockNames {

    /** The name of a lock whose key does not start with a safe kind. */
    static final String UNNAMED = "unnamed";

    static final int MAX_LENGTH = 200;

    /** The longest kind that can be derived from a key (see {@link #derive}). */
    private static final int MAX_KIND_LENGTH = 64;

    private LockNames() {
    }

    /**
     * The name of a key: its text before the first ':' when that text is a kind (a letter, then up to 63 letters,
     * '.', '-' or '_'; no digits, which ids have), else {@link #UNNAMED}. Runs on every call: no pattern, no garbage
     * but the name.
     */
    static String derive(String key) {
        int colon = key.indexOf(':');
        if (colon <= 0 || colon > MAX_KIND_LENGTH || !isLetter(key.charAt(0))) {
            return UNNAMED;
        }
        for (int i = 1; i < colon; i++) {
            char c = key.charAt(i);
            if (!isLetter(c) && c != '.' && c != '-' && c != '_') {
                return UNNAMED;
            }
        }
        return key.substring(0, colon);
    }

    private static boolean isLetter(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    static String check(@Nullable String name) {
        if (name == null) {
            throw new IllegalArgumentException("name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "name must be at most " + MAX_LENGTH + " characters, but had " + name.length());
        }
        if (name.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("name must not contain control characters such as newlines");
        }
        return name;
    }
}
