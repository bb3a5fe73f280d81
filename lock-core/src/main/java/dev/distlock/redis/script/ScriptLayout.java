package dev.distlock.redis.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A lock script with its arguments by name: the Java side fills ARGV by {@link ScriptArgument}, and the script's header
 * declares the same names at the same positions. A script whose header disagrees is refused when it is loaded.
 *
 * @param <T> what the script answers
 */
public final class ScriptLayout<T> {

    /** A header line declaring an argument: {@code -- ARGV[3]  LEASE_MILLIS  ...}, or {@code ARGV[2...]} for "and on". */
    private static final Pattern DECLARATION = Pattern.compile("^-- ARGV\\[(\\d+)(\\.\\.\\.)?\\]\\s+([A-Z_]+)\\b");

    /** The line that includes a shared file, followed by its name (see {@link #read}). */
    private static final String INCLUDE = "--#include ";

    /** The line that becomes the {@code local} statement naming the arguments (see {@link #read}). */
    private static final String ARGUMENTS = "--#arguments";

    /** The shared file that defines the ACL guard, and what a script includes in its place without it. */
    private static final String ACL_GUARD = "acl-guard.lua";

    private static final String ACL_UNCHECKED = "acl-unchecked.lua";

    /** What {@link #declaredArguments} appends to a batch argument's name ({@code ARGV[n...]}). */
    private static final String BATCH = "...";

    private final String file;

    private final GuardedScript<T> script;

    private final ScriptArgument[] arguments;

    /** Per {@link ScriptArgument#ordinal()}, its ARGV index (0-based), or -1. */
    private final int[] positions = new int[ScriptArgument.values().length];

    private ScriptLayout(String file, GuardedScript<T> script, ScriptArgument[] arguments) {
        this.file = file;
        this.script = script;
        this.arguments = arguments;
        Arrays.fill(this.positions, -1);
        for (int i = 0; i < arguments.length; i++) {
            if (this.positions[arguments[i].ordinal()] >= 0) {
                throw new IllegalArgumentException(file + " lists " + arguments[i] + " twice");
            }
            this.positions[arguments[i].ordinal()] = i;
        }
    }

    /**
     * Loads {@code file} (with its includes) and checks that its header declares exactly {@code arguments}, in order.
     * A batch script declares its last argument as {@code ARGV[n...]}: that argument and on, one per key.
     *
     * @throws IllegalStateException when the header and {@code arguments} disagree
     */
    public static <T> ScriptLayout<T> load(String file, Class<T> resultType, ScriptArgument... arguments) {
        return load(file, resultType, true, arguments);
    }

    /**
     * {@link #load}, for a script that must check the user's grants whoever runs it (the start-up check): no variant
     * without the ACL guard.
     */
    static <T> ScriptLayout<T> loadAlwaysGuarded(String file, Class<T> resultType, ScriptArgument... arguments) {
        return load(file, resultType, false, arguments);
    }

    private static <T> ScriptLayout<T> load(String file, Class<T> resultType, boolean unguardedVariant,
            ScriptArgument... arguments) {
        String guardedTemplate = expand(file, new java.util.HashSet<>(), true);
        List<String> names = declaredArguments(guardedTemplate);
        List<String> declared = names.stream().map(name -> name.replace(BATCH, "")).toList();
        List<String> expected = Arrays.stream(arguments).map(Enum::name).toList();
        if (!declared.equals(expected)) {
            throw new IllegalStateException("The header of " + file + " declares ARGV " + declared
                    + ", but the Java side sends " + expected);
        }
        // Read once into a String: a script built on a classpath resource checks the resource's last-modified time
        // (opening the jar) every time Spring asks for its SHA-1, which is on every call.
        String binding = binding(names);
        String text = guardedTemplate.replace(ARGUMENTS, binding);
        String unguarded = unguardedVariant ? expand(file, new java.util.HashSet<>(), false).replace(ARGUMENTS, binding)
                : text;
        return new ScriptLayout<>(file, new GuardedScript<>(text, resultType,
                unguarded.equals(text) ? null : new DefaultRedisScript<>(unguarded, resultType)), arguments.clone());
    }

    /**
     * The argument names a script's header declares, in ARGV order (its own header only: includes come later), a batch
     * argument's name followed by {@code ...}.
     */
    static List<String> declaredArguments(String text) {
        List<String> names = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith("--") || line.startsWith("--#")) {
                break; // the header ends at the first line of code or directive
            }
            Matcher declaration = DECLARATION.matcher(line);
            if (declaration.find()) {
                int position = Integer.parseInt(declaration.group(1));
                if (position != names.size() + 1) {
                    throw new IllegalStateException("A script header declares ARGV[" + position + "] after "
                            + names.size() + " arguments: " + line);
                }
                names.add(declaration.group(3) + (declaration.group(2) != null ? BATCH : ""));
            }
        }
        return names;
    }

    /**
     * A script's text, with each line {@code --#include <file>} replaced by that file of the same folder (once per
     * script: a file already included, directly or by another include, is not repeated), so that a Lua function
     * several scripts share is written once; and the line {@code --#arguments} replaced by one {@code local} statement
     * that names each argument the header declares ({@code local OWNER_TOKEN, HOLD_ID = ARGV[1], ARGV[2]}), so that the
     * script's body uses the names, never a position. An indented include sits inside a block: Lua defines its
     * functions (a closure each, on every call) only when a call runs that block, and they are local to it, so the
     * rest of the script has not included that file (nor what it includes).
     */
    static String read(String name) {
        String text = expand(name, new java.util.HashSet<>(), true);
        return text.replace(ARGUMENTS, binding(declaredArguments(text)));
    }

    private static String expand(String name, java.util.Set<String> included, boolean aclGuard) {
        included.add(name);
        // Read by this class itself: on the module path the scripts' package is not open, so a class loader lookup
        // (ClassPathResource without a class) would not find them.
        String text;
        try (InputStream in = ScriptLayout.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("not found next to " + ScriptLayout.class.getName());
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read the lock script " + name, ex);
        }
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            String directive = line.stripLeading();
            if (!directive.startsWith(INCLUDE)) {
                lines.add(line);
                continue;
            }
            String file = directive.substring(INCLUDE.length()).split(" ", 2)[0];
            if (!aclGuard && file.equals(ACL_GUARD)) {
                file = ACL_UNCHECKED;
            }
            if (!included.contains(file)) {
                boolean nested = directive.length() < line.length();
                lines.add(expand(file, nested ? new java.util.HashSet<>(included) : included, aclGuard).stripTrailing());
            }
        }
        return String.join("\n", lines);
    }

    /** {@code local A, B = ARGV[1], ARGV[2]} for the declared arguments, without a batch argument's ({@code ...}). */
    private static String binding(List<String> declared) {
        List<String> names = declared.stream().filter(name -> !name.endsWith(BATCH)).toList();
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= names.size(); i++) {
            values.add("ARGV[" + i + "]");
        }
        return names.isEmpty() ? "-- (no arguments)" : "local " + String.join(", ", names) + " = " + String.join(", ", values);
    }

    /** The script, with the ACL guard; {@link AclGuard#select} picks the variant a service runs. */
    public RedisScript<T> script() {
        return this.script;
    }

    /** The file the script was read from. */
    public String file() {
        return this.file;
    }

    /** The arguments, in ARGV order. */
    public List<ScriptArgument> arguments() {
        return List.of(this.arguments);
    }

    /** A new, empty argument list of this script, to fill by name. */
    public Arguments arguments(int batchSize) {
        return new Arguments(new Object[this.arguments.length + Math.max(0, batchSize - 1)]);
    }

    /** {@link #arguments(int)} for a script that takes one of each argument. */
    public Arguments newArguments() {
        return arguments(1);
    }

    /** One call's arguments, filled by name. */
    public final class Arguments {

        private final Object[] values;

        private Arguments(Object[] values) {
            this.values = values;
        }

        /** Sets {@code argument}; a script's header must declare it. */
        public Arguments set(ScriptArgument argument, Object value) {
            return setAt(argument, 0, value);
        }

        /** Sets a flag: {@code '1'} or {@code '0'}. */
        public Arguments set(ScriptArgument argument, boolean value) {
            return set(argument, value ? "1" : "0");
        }

        /** Sets a number (a fencing token, permits), as its decimal text. */
        public Arguments set(ScriptArgument argument, long value) {
            return set(argument, Long.toString(value));
        }

        /** Sets a duration given in nanoseconds as whole milliseconds, rounded up (see {@link MillisText}). */
        public Arguments setMillis(ScriptArgument argument, long nanos) {
            return set(argument, MillisText.of(nanos));
        }

        /** Sets a duration as the whole milliseconds Redis takes, rounded up. */
        public Arguments setMillis(ScriptArgument argument, Duration duration) {
            return setMillis(argument, duration.toNanos());
        }

        /** Sets the {@code index}th value of a batch script's last argument ({@code ARGV[n...]}). */
        public Arguments setAt(ScriptArgument argument, int index, Object value) {
            int position = ScriptLayout.this.positions[argument.ordinal()];
            if (position < 0) {
                throw new IllegalArgumentException(ScriptLayout.this.file + " takes no " + argument);
            }
            this.values[position + index] = value;
            return this;
        }

        /** The ARGV values, every one set. */
        public Object[] toArray() {
            for (int i = 0; i < this.values.length; i++) {
                if (this.values[i] == null) {
                    throw new IllegalStateException(ScriptLayout.this.file + " was not given "
                            + ScriptLayout.this.arguments[Math.min(i, ScriptLayout.this.arguments.length - 1)]);
                }
            }
            return this.values;
        }
    }

    /**
     * The one place durations become Redis's text: whole milliseconds, rounded up (the client counts a lease or a
     * delay as given, so Redis must not end it sooner), in decimal. A service sends a few fixed durations on every call
     * (its watchdog lease, token retention, waiter lease, restart grace, a caller's usual lease), so their texts are
     * kept in a small table instead of being formatted per call.
     */
    static final class MillisText {

        private static final int SLOTS = 64;

        /** Racy by design: an entry is immutable (final fields), a lost update only costs a later miss. */
        private static final Entry[] TABLE = new Entry[SLOTS];

        private MillisText() {
        }

        static String of(long nanos) {
            long millis = -Math.floorDiv(-nanos, 1_000_000L); // rounded up: a lease or delay is never cut short
            int slot = (int) ((millis * 0x9E3779B97F4A7C15L) >>> 58); // the top 6 bits of a Fibonacci hash
            Entry entry = TABLE[slot];
            if (entry != null && entry.millis == millis) {
                return entry.text;
            }
            String text = Long.toString(millis);
            TABLE[slot] = new Entry(millis, text);
            return text;
        }

        private record Entry(long millis, String text) {
        }
    }
}
