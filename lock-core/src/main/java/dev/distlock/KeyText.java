package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Keys as they appear in messages and log lines. A key may come from a caller's input, so it is printed with every
 * control character (CR, LF, ESC, NUL...), every invisible format character (bidi overrides such as U+202E, zero-width
 * characters such as U+200B) and line or paragraph separators written as a backslash, u and four hex digits, so that no
 * key can forge a log line, move the terminal's cursor or reorder the text around it; keys longer than {@value
 * #MAX_SHOWN} characters are cut, with their length said.
 */
public final class KeyText {

    /** The most characters of a key a message shows. */
    public static final int MAX_SHOWN = 120;

    private KeyText() {
    }

    /** The key in single quotes, escaped and cut as above; {@code null} for a null key. */
    public static String quote(@Nullable String key) {
        if (key == null) {
            return "null";
        }
        if (key.length() <= MAX_SHOWN) {
            return "'" + escape(key) + "'";
        }
        int end = MAX_SHOWN;
        if (Character.isHighSurrogate(key.charAt(end - 1))) {
            end--; // never cut a character in half
        }
        return "'" + escape(key.substring(0, end)) + "'... (" + key.length() + " characters)";
    }

    /**
     * The text with every character that could forge or hide log text written as a backslash, u and four hex digits.
     * Applying it twice gives the same text as applying it once.
     */
    public static String escape(String text) {
        StringBuilder escaped = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (unsafe(c)) {
                if (escaped == null) {
                    escaped = new StringBuilder(text.length() + 16).append(text, 0, i);
                }
                escaped.append(String.format("\\u%04X", (int) c));
            }
            else if (escaped != null) {
                escaped.append(c);
            }
        }
        return (escaped != null) ? escaped.toString() : text;
    }

    /**
     * A message about a lock as a log line: as it is when {@code showKey}, else with the quoted key (as
     * {@link #quote} prints it) replaced by the lock's name, for logs that must not hold keys such as user ids.
     */
    public static String forLog(String message, String key, String name, boolean showKey) {
        String line = escape(message);
        return showKey ? line : line.replace(quote(key), "named '" + escape(name) + "' (key not logged)");
    }

    private static boolean unsafe(char c) {
        if (Character.isISOControl(c)) {
            return true;
        }
        int type = Character.getType(c);
        return type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR;
    }
}
