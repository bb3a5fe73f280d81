package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

/**
 * Everything one Redis server holds, read with plain commands (SCAN, TYPE, GET, HGETALL, ZRANGE ... WITHSCORES, PTTL),
 * and an exact comparison with what docs/data-layout.md says it holds: every key, its type, every field or member and
 * its value in the documented format, and its expiry. The data-layout tests use nothing of the library's own readers,
 * so that a change of the layout that is not made in the specification fails here.
 */
public final class DataLayoutSnapshot {

    /** How far below its rule an expiry may have run down by the time it is read (a loaded 2-core machine). */
    public static final long SLACK_MILLIS = 3_000;

    private final Map<String, Entry> entries;

    /** Redis's clock (TIME) when read, in ms: lease ends and place ends are compared with it. */
    public final long nowMillis;

    private DataLayoutSnapshot(Map<String, Entry> entries, long nowMillis) {
        this.entries = entries;
        this.nowMillis = nowMillis;
    }

    /** A key's type, its value (string) or fields/members (hash: field to value, zset: member to score), its PTTL. */
    public record Entry(DataType type, String string, Map<String, String> fields, long pttl) {
    }

    public static DataLayoutSnapshot read(StringRedisTemplate redis) {
        Long now = redis.execute((RedisCallback<Long>) connection -> connection.serverCommands()
            .time(TimeUnit.MILLISECONDS));
        Map<String, Entry> entries = new TreeMap<>();
        try (Cursor<String> keys = redis.scan(ScanOptions.scanOptions().match("*").count(1000).build())) {
            while (keys.hasNext()) {
                String key = keys.next();
                DataType type = redis.type(key);
                Long pttl = redis.getExpire(key, TimeUnit.MILLISECONDS);
                Map<String, String> fields = new TreeMap<>();
                String string = null;
                if (type == DataType.STRING) {
                    string = redis.opsForValue().get(key);
                }
                else if (type == DataType.HASH) {
                    redis.<String, String>opsForHash().entries(key).forEach(fields::put);
                }
                else if (type == DataType.ZSET) {
                    for (TypedTuple<String> member : redis.opsForZSet().rangeWithScores(key, 0, -1)) {
                        fields.put(member.getValue(), score(member.getScore()));
                    }
                }
                Entry entry = new Entry(type, string, fields, (pttl == null) ? -2 : pttl);
                if (INSTANCE_RECORD.matcher(key).matches()) {
                    checkInstanceRecord(key, entry); // one per service, whichever locks the test takes
                }
                else {
                    entries.put(key, entry);
                }
            }
        }
        return new DataLayoutSnapshot(entries, now);
    }

    /** A service's instance record (docs/data-layout.md, "Instance record"): outside every lock's hash tag. */
    private static final Pattern INSTANCE_RECORD = Pattern.compile("[^{}]+:instance:[0-9a-f]{16}");

    private static final Pattern HOLD_FIELD = Pattern.compile("hold:[0-9a-f]{32}");

    /** Checks an instance record against the specification: its identity fields, its long holds, its expiry. */
    private static void checkInstanceRecord(String key, Entry record) {
        assertThat(record.type()).as(key).isEqualTo(DataType.STRING);
        assertThat(record.string()).as(key).endsWith("\n");
        Map<String, String> fields = new TreeMap<>();
        for (String line : record.string().split("\n")) {
            assertThat(line).as("a line of %s", key).matches("[a-z]+(:[0-9a-f]{32})? .+");
            assertThat(fields.put(line.substring(0, line.indexOf(' ')), line.substring(line.indexOf(' ') + 1)))
                .as("a field of %s written once", key).isNull();
        }
        assertThat(fields).as(key).containsKeys("host", "pid", "started", "expiry");
        long expiry = Long.parseLong(fields.get("expiry"));
        assertThat(record.pttl()).as("%s expires within its expiry field", key).isBetween(1L, expiry);
        assertThat(fields.get("pid")).as(key).matches("[0-9]+");
        assertThat(fields.get("started")).as(key).matches("[0-9]{13}");
        fields.forEach((field, value) -> {
            if (field.startsWith("hold:")) {
                assertThat(field).as(key).matches(HOLD_FIELD);
                assertThat(value).as("%s %s", key, field).matches("[0-9]{13} .{1,200}");
            }
            else {
                assertThat(field).as("a field of %s", key).isIn("host", "app", "pid", "started", "expiry");
                assertThat(value.length()).as("%s %s", key, field).isBetween(1, 200);
            }
        });
    }

    private static String score(Double score) {
        return (score == Math.rint(score)) ? Long.toString(score.longValue()) : Double.toString(score);
    }

    public Entry entry(String key) {
        Entry entry = this.entries.get(key);
        assertThat(entry).as("key %s in %s", key, this).isNotNull();
        return entry;
    }

    /**
     * How much Redis holds, whatever its layout: keys, plus fields and members, plus the characters of strings. A
     * waiter's mark or place makes it grow, a renewal does not change it: tests wait for it to grow, then compare the
     * content, so that a renamed field fails the comparison, with the content in its message, not the wait.
     */
    public long size() {
        long size = this.entries.size();
        for (Entry entry : this.entries.values()) {
            size += entry.fields().size() + ((entry.string() != null) ? entry.string().length() : 0);
        }
        return size;
    }

    /** The string's value's groups when it matches regex, else fails. */
    public String[] groups(String key, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(entry(key).string());
        assertThat(matcher.matches()).as("%s = %s matches %s", key, entry(key).string(), regex).isTrue();
        String[] groups = new String[matcher.groupCount() + 1];
        for (int i = 0; i < groups.length; i++) {
            groups[i] = matcher.group(i);
        }
        return groups;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("Redis holds (TIME ").append(this.nowMillis).append(" ms):");
        this.entries.forEach((key, entry) -> text.append("\n  ").append(key).append(' ').append(entry.type().code())
            .append(" pttl=").append(entry.pttl()).append(' ')
            .append((entry.type() == DataType.STRING) ? "'" + entry.string() + "'" : entry.fields()));
        return text.toString();
    }

    /** The whole expected content of Redis: a key not named here fails the comparison, as does a missing one. */
    public static Expected expect() {
        return new Expected();
    }

    /** A value's check: its text, and Redis's TIME in ms at the read. */
    public interface Value extends BiPredicate<String, Long> {
    }

    public static Value is(String literal) {
        return described((value, now) -> literal.equals(value), "'" + literal + "'");
    }

    public static Value matches(String regex) {
        Pattern pattern = Pattern.compile(regex);
        return described((value, now) -> value != null && pattern.matcher(value).matches(), "/" + regex + "/");
    }

    /** A time in Redis ms, {@code ms} from the read's TIME, give or take the slack (and 500 ms of clock steps). */
    public static Value msFromNow(long ms) {
        return described((value, now) -> value != null && value.matches("\\d{13}")
                && Long.parseLong(value) >= now + ms - SLACK_MILLIS && Long.parseLong(value) <= now + ms + 500,
                "a time in ms, about now + " + ms);
    }

    private static Value described(Value check, String description) {
        return new Value() {
            @Override
            public boolean test(String value, Long now) {
                return check.test(value, now);
            }

            @Override
            public String toString() {
                return description;
            }
        };
    }

    /** A hold id: the decimal number a JVM's acquisitions count up (never reused in one JVM). */
    public static final String HOLD_ID = "\\d+";

    /** An owner token (16 random bytes) or a holder token in hex. */
    public static final String TOKEN = "[0-9a-f]{32}";

    /** The expiry that {@code rule} ms set, read at most the slack later. */
    public static long[] ttl(long rule) {
        return new long[] { rule - SLACK_MILLIS, rule };
    }

    /** No expiry (PTTL -1). */
    public static final long[] PERSISTENT = { -1, -1 };

    public static final class Expected {

        private final Map<String, KeyCheck> keys = new LinkedHashMap<>();

        private record KeyCheck(DataType type, Value string, List<Map.Entry<Value, Value>> fields, long[] ttl) {
        }

        public Expected string(String key, Value value, long[] ttl) {
            this.keys.put(key, new KeyCheck(DataType.STRING, value, List.of(), ttl));
            return this;
        }

        /** A hash; fields: name check, value check, name check, value check, ... ({@link #is} for a literal). */
        public Expected hash(String key, long[] ttl, Value... fields) {
            this.keys.put(key, new KeyCheck(DataType.HASH, null, pairs(fields), ttl));
            return this;
        }

        /** A sorted set; members: member check, score check, ... */
        public Expected zset(String key, long[] ttl, Value... members) {
            this.keys.put(key, new KeyCheck(DataType.ZSET, null, pairs(members), ttl));
            return this;
        }

        private static List<Map.Entry<Value, Value>> pairs(Value[] checks) {
            assertThat(checks.length % 2).as("name and value checks come in pairs").isZero();
            List<Map.Entry<Value, Value>> pairs = new ArrayList<>();
            for (int i = 0; i < checks.length; i += 2) {
                pairs.add(Map.entry(checks[i], checks[i + 1]));
            }
            return pairs;
        }

        /** Compares: the same keys, each of its type, fields and members one to one with the checks, expiry in range. */
        public void check(DataLayoutSnapshot actual) {
            assertThat(new TreeSet<>(actual.entries.keySet())).as("the keys in %s", actual)
                .isEqualTo(new TreeSet<>(this.keys.keySet()));
            this.keys.forEach((key, expected) -> {
                Entry entry = actual.entries.get(key);
                assertThat(entry.type()).as("TYPE of %s in %s", key, actual).isEqualTo(expected.type());
                assertThat(entry.pttl()).as("PTTL of %s in %s", key, actual)
                    .isBetween(expected.ttl()[0], expected.ttl()[1]);
                if (expected.type() == DataType.STRING) {
                    assertThat(expected.string().test(entry.string(), actual.nowMillis))
                        .as("%s is %s in %s", key, expected.string(), actual).isTrue();
                    return;
                }
                // each field (member) matches exactly one check, each check exactly one field
                Map<String, String> unmatched = new TreeMap<>(entry.fields());
                for (Map.Entry<Value, Value> check : expected.fields()) {
                    String found = null;
                    for (Map.Entry<String, String> field : unmatched.entrySet()) {
                        if (check.getKey().test(field.getKey(), actual.nowMillis)
                                && check.getValue().test(field.getValue(), actual.nowMillis)) {
                            found = field.getKey();
                            break;
                        }
                    }
                    assertThat(found).as("%s has a field %s = %s in %s", key, check.getKey(), check.getValue(), actual)
                        .isNotNull();
                    unmatched.remove(found);
                }
                assertThat(unmatched).as("fields of %s that the specification does not name, in %s", key, actual)
                    .isEmpty();
            });
        }
    }
}
