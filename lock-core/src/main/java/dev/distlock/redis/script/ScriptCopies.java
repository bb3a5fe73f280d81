package dev.distlock.redis.script;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.DefaultRedisScript;

/**
 * A lock script's copies with its few-valued arguments ({@link ScriptArgument#isWrittenIntoScript(boolean)}: flags
 * and a service's settings) written into the text as constants, one copy per set of values met, so that a call sends
 * Redis only the arguments that change from call to call: Redis spends about 1.1k instructions on each argument a call
 * sends (docs/benchmarks.md, "Instructions per cycle"). A copy reads the same names as the script, bound to constants
 * instead of ARGV; it is sent with EVALSHA like the script, and loaded by the first call's NOSCRIPT fallback.
 *
 * <p>The lease ({@link ScriptArgument#LEASE_MILLIS}) is written only into the copies for calls the watchdog renews,
 * whose lease is the service's watchdog lease; a fixed lease, the caller's own and any value, is sent.
 *
 * <p>A call whose values are not plain words, or not the one value an argument is written as (a delayed release's
 * {@link ScriptArgument#KEEP_HELD_MILLIS}), or that would need more than {@link #MOST_COPIES} copies, is sent as the
 * script itself with every argument, which answers the same. Thread-safe: copies are added under a lock and read
 * without one.
 *
 * @param <T> what the script answers
 */
final class ScriptCopies<T> {

    /** The most copies one script keeps: a service meets a few (its settings, times its flags), never this many. */
    static final int MOST_COPIES = 64;

    /** A value that may be written into a script's text as a Lua string literal as it is. */
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9]{1,40}");

    /** The ARGV positions (0-based) written into each copy, in order. */
    private final int[] written;

    /** Per written position, the one value a copy is made for (ScriptArgument#onlyWrittenAs), or null for any. */
    private final @Nullable String[] onlyValues;

    /** Per written position, whether it is written only for a watched call (ScriptArgument#onlyWrittenWhenWatched). */
    private final boolean[] onlyWhenWatched;

    /** The ARGV position (0-based) of {@link ScriptArgument#WATCHDOG}, or -1 when the script takes none. */
    private final int watchdog;

    /** A copy's text with the ACL guard and without it, given the values of {@link #written} (null: sent). */
    private final BiFunction<@Nullable String[], Boolean, String> text;

    private final Class<T> resultType;

    private volatile List<Copy<T>> copies = List.of();

    private ScriptCopies(int[] written, @Nullable String[] onlyValues, boolean[] onlyWhenWatched, int watchdog,
            BiFunction<@Nullable String[], Boolean, String> text, Class<T> resultType) {
        this.written = written;
        this.onlyValues = onlyValues;
        this.onlyWhenWatched = onlyWhenWatched;
        this.watchdog = watchdog;
        this.text = text;
        this.resultType = resultType;
    }

    /**
     * The copies of a script whose header declares {@code arguments} (ARGV order), or null when it takes none that is
     * written into a copy, or takes a batch argument (read by position).
     *
     * @param text a copy's text for the values of the written arguments, with the ACL guard (true) or without it (the
     * same text for a script that has no variant without it)
     */
    static <T> @Nullable ScriptCopies<T> of(List<ScriptArgument> arguments, boolean batch,
            BiFunction<@Nullable String[], Boolean, String> text, Class<T> resultType) {
        if (batch) {
            return null;
        }
        int watchdog = arguments.indexOf(ScriptArgument.WATCHDOG);
        int[] written = new int[arguments.size()];
        @Nullable String[] onlyValues = new String[arguments.size()];
        boolean[] onlyWhenWatched = new boolean[arguments.size()];
        int count = 0;
        for (int i = 0; i < arguments.size(); i++) {
            ScriptArgument argument = arguments.get(i);
            if (argument.isWrittenIntoScript(watchdog >= 0)) {
                onlyValues[count] = argument.onlyWrittenAs();
                onlyWhenWatched[count] = argument.onlyWrittenWhenWatched();
                written[count++] = i;
            }
        }
        return (count == 0) ? null : new ScriptCopies<>(Arrays.copyOf(written, count), Arrays.copyOf(onlyValues, count),
                Arrays.copyOf(onlyWhenWatched, count), watchdog, text, resultType);
    }

    /** The copy for a call with these arguments (ARGV order), or null to send the script itself with all of them. */
    @Nullable Copy<T> copyFor(Object[] args) {
        List<Copy<T>> known = this.copies;
        for (int i = 0; i < known.size(); i++) {
            if (known.get(i).matches(args)) {
                return known.get(i);
            }
        }
        if (known.size() >= MOST_COPIES) {
            return null;
        }
        for (int i = 0; i < this.written.length; i++) {
            if (this.onlyValues[i] != null && !this.onlyValues[i].equals(String.valueOf(args[this.written[i]]))) {
                return null; // no copy for this value, nor a lock to take for knowing it
            }
        }
        return added(args);
    }

    private synchronized @Nullable Copy<T> added(Object[] args) {
        List<Copy<T>> known = this.copies;
        for (Copy<T> copy : known) {
            if (copy.matches(args)) {
                return copy;
            }
        }
        if (known.size() >= MOST_COPIES) {
            return null;
        }
        boolean watched = this.watchdog >= 0 && "1".equals(String.valueOf(args[this.watchdog]));
        @Nullable String[] values = new String[this.written.length];
        for (int i = 0; i < values.length; i++) {
            if (this.onlyWhenWatched[i] && !watched) {
                continue; // sent: null
            }
            String value = String.valueOf(args[this.written[i]]); // copyFor checked the one-value arguments
            if (!PLAIN_WORD.matcher(value).matches()) {
                return null;
            }
            values[i] = value;
        }
        String guarded = this.text.apply(values, true);
        String unguarded = this.text.apply(values, false);
        Copy<T> copy = new Copy<>(values, this.written, new GuardedScript<>(guarded, this.resultType,
                unguarded.equals(guarded) ? null : new DefaultRedisScript<>(unguarded, this.resultType), null));
        List<Copy<T>> more = new ArrayList<>(known);
        more.add(copy);
        this.copies = List.copyOf(more);
        return copy;
    }

    /** How many copies were made. */
    int size() {
        return this.copies.size();
    }

    /**
     * One copy: the values written into it, and the script. A value is null where the copy's argument is sent all the
     * same (one written only for a watched call, in a copy for an unwatched one): WATCHDOG is written into every copy
     * of a script that takes it, so a call matches such a copy only when it is unwatched as well.
     */
    static final class Copy<T> {

        private final @Nullable String[] values;

        private final int[] written;

        private final int writtenCount;

        private final GuardedScript<T> script;

        Copy(@Nullable String[] values, int[] written, GuardedScript<T> script) {
            this.values = values;
            this.written = written;
            int writtenCount = 0;
            for (String value : values) {
                writtenCount += (value != null) ? 1 : 0;
            }
            this.writtenCount = writtenCount;
            this.script = script;
        }

        boolean matches(Object[] args) {
            for (int i = 0; i < this.written.length; i++) {
                String value = this.values[i];
                Object arg = args[this.written[i]];
                if (value != null && !value.equals((arg instanceof String text) ? text : String.valueOf(arg))) {
                    return false;
                }
            }
            return true;
        }

        GuardedScript<T> script() {
            return this.script;
        }

        /** A call's arguments without those written into this copy, in ARGV order. */
        Object[] arguments(Object[] args) {
            Object[] sent = new Object[args.length - this.writtenCount];
            int next = 0;
            int skip = 0;
            for (int i = 0; i < args.length; i++) {
                if (skip < this.written.length && this.written[skip] == i) {
                    if (this.values[skip++] == null) {
                        sent[next++] = args[i];
                    }
                }
                else {
                    sent[next++] = args[i];
                }
            }
            return sent;
        }
    }
}
