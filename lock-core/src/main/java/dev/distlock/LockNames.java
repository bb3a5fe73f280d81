package dev.distlock;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Lock names: the low-cardinality labels that metrics and traces use instead of keys, which may hold user ids. See
 * {@link LockOptions#withName(String)} for the rules.
 */
final class LockNames {

    /** The name of a lock whose key does not start with a safe kind. */
    static final String UNNAMED = "unnamed";

    static final int MAX_LENGTH = 200;

    /** A kind that can be derived from a key: a letter, then letters, '.', '-' or '_'; no digits, which ids have. */
    private static final Pattern KIND = Pattern.compile("[A-Za-z][A-Za-z._-]{0,63}");

    private LockNames() {
    }

    /** The name of a key: its text before the first ':' when that text is a {@link #KIND}, else {@link #UNNAMED}. */
    static String derive(String key) {
        int colon = key.indexOf(':');
        if (colon > 0) {
            String kind = key.substring(0, colon);
            if (KIND.matcher(kind).matches()) {
                return kind;
            }
        }
        return UNNAMED;
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
