package dev.distlock.bench.scriptcost;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import java.util.function.LongPredicate;
import java.util.function.UnaryOperator;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

import dev.distlock.LockMode;
import dev.distlock.redis.script.LockKeys;
import dev.distlock.redis.script.LockScripts;
import dev.distlock.redis.script.LockTarget;
import dev.distlock.redis.script.LockType;
import dev.distlock.redis.script.LockTypes;
import dev.distlock.redis.script.RestartGrace;
import dev.distlock.redis.script.ScriptCall;
import dev.distlock.redis.script.ShardedPubSub;

/**
 * The cases {@link dev.distlock.bench.ScriptCost} measures: each lock script on its common paths, built by lock-core's
 * own lock types (so the keys and arguments are those a service sends), A/B variants of a script with one part taken
 * out, and tiny scripts that cost one part alone.
 */
public final class ScriptCases {

    private static final String PREFIX = "cost";

    private static final String LEASE = "30000";

    /** {@link #LEASE} as the lock types take it. */
    private static final long LEASE_NANOS = Duration.ofMillis(30_000).toNanos();

    private static final int RENEW_BATCH = 100;

    private final Map<LockMode, LockType> types;

    private final Map<LockMode, LockType> typesWithoutGrace;

    private final LockScripts scripts;

    private final StringRedisTemplate redis;

    private final Map<String, RedisScript<Long>> variants = new ConcurrentHashMap<>();

    public ScriptCases(StringRedisTemplate redis) {
        this.redis = redis;
        ShardedPubSub pubSub = new ShardedPubSub(redis, PREFIX + ":{probe}:released");
        // as a service builds them: a restart grace (its marker is written once Redis is older than the grace)
        this.scripts = new LockScripts(redis, new RestartGrace(Duration.ofSeconds(1), PREFIX, false));
        this.types = LockTypes.all(new LockType.Context(new LockKeys(PREFIX), this.scripts, "client-1",
                Duration.ofMinutes(1), Duration.ofSeconds(6), pubSub));
        this.typesWithoutGrace = LockTypes.all(new LockType.Context(new LockKeys(PREFIX), new LockScripts(redis),
                "client-1", Duration.ofMinutes(1), Duration.ofSeconds(6), pubSub));
    }

    /** Every case, in the order of the report. */
    public List<CostCase> all() {
        List<CostCase> cases = new ArrayList<>();
        LockType exclusive = this.types.get(LockMode.EXCLUSIVE);
        IntFunction<ScriptCall> grant = i -> exclusive.acquireCall(holder(exclusive, i, "a"), watched("1"));
        cases.add(of("acquire: new grant, watchdog lease", "the common uncontended acquire", List.of(), grant,
                positive()));
        IntFunction<ScriptCall> otherFreed = i -> exclusive.releaseCall(holder(exclusive, i, "b"), releaseOf("1"));
        cases.add(of("acquire: new grant after another owner's release", "a lock cycle's acquire: the key is kept",
                List.of(i -> exclusive.acquireCall(holder(exclusive, i, "b"), watched("1")), otherFreed), grant,
                positive()));
        cases.add(of("acquire: the same, no restart grace", "the restart grace's EXISTS (and its arguments)",
                List.of(), i -> this.typesWithoutGrace.get(LockMode.EXCLUSIVE)
                    .acquireCall(holder(exclusive, i, "a"), watched("1")), positive()));
        addVariant(cases, "acquire: the same, no ACL guard", "the ACL guard", List.of(), grant, ScriptCases::noGuard,
                positive());
        cases.add(of("acquire: new grant, fixed lease", "TIME and the hold's lease end", List.of(),
                i -> exclusive.acquireCall(holder(exclusive, i, "a"), fixed("1")), positive()));
        IntFunction<ScriptCall> reentry = i -> exclusive.acquireCall(holder(exclusive, i, "a"),
                new LockType.Grant("2", LEASE_NANOS, true, true, false));
        cases.add(of("acquire: re-entry", "a second hold of the owner", List.of(grant), reentry, positive()));
        IntFunction<ScriptCall> refusal = i -> exclusive.acquireCall(holder(exclusive, i, "b"),
                new LockType.Grant("1", LEASE_NANOS, true, false, true));
        cases.add(of("acquire: refused, caller waits", "a refusal that marks 'waiting'", List.of(grant), refusal,
                reply -> reply < 0));

        IntFunction<ScriptCall> release = i -> exclusive.releaseCall(holder(exclusive, i, "a"), releaseOf("1"));
        cases.add(of("release: last hold, nobody waited", "the common release (no PUBLISH)", List.of(grant), release,
                equal(1)));
        cases.add(of("release: last hold, a waiter was refused", "+ PUBLISH to a channel nobody listens to",
                List.of(grant, refusedWaiter(exclusive)), release, equal(1)));
        addVariant(cases, "release: nobody waited, no ACL guard", "the ACL guard", List.of(grant), release,
                ScriptCases::noGuard, equal(1));
        addVariant(cases, "release: nobody waited, keeps nothing", "what a release keeps ('fence', 'chain')",
                List.of(grant), release, ScriptCases::keepNothing, equal(1));
        cases.add(of("release: one of two holds", "a re-entered hold's release",
                List.of(grant, i -> exclusive.acquireCall(holder(exclusive, i, "a"),
                        new LockType.Grant("2", LEASE_NANOS, true, true, false))),
                i -> exclusive.releaseCall(holder(exclusive, i, "a"), releaseOf("2")), equal(2)));
        IntFunction<ScriptCall> handOff = i -> exclusive.handOffCall(holder(exclusive, i, "a"), releaseOf("1"),
                holder(exclusive, i, "b"), watched("1"), false);
        cases.add(of("handoff: to a waiter of the same process", "release and grant in one call", List.of(grant),
                handOff, positive()));
        cases.add(renewal("renew: one lock per call", exclusive, 1, null));
        cases.add(renewal("renew: " + RENEW_BATCH + " locks per call, per lock", exclusive, RENEW_BATCH, null));
        cases.add(OneFieldRenewal.of("renew: one-field hashes (Redisson's shape), " + RENEW_BATCH
                + " per call, per lock", this.redis, RENEW_BATCH, LEASE));

        for (LockMode mode : List.of(LockMode.FAIR, LockMode.READ, LockMode.WRITE)) {
            LockType type = this.types.get(mode);
            String name = mode.name().toLowerCase(java.util.Locale.ROOT);
            IntFunction<ScriptCall> take = i -> type.acquireCall(holder(type, i, "a"), watched("1"));
            cases.add(of(name + " acquire: new grant", "", List.of(), take, positive()));
            cases.add(of(name + " release: last hold", "", List.of(take),
                    i -> type.releaseCall(holder(type, i, "a"), releaseOf("1")), equal(1)));
        }

        // the parts alone: tiny scripts with the keys and arguments of acquire.lua's copy (compared with the first)
        cases.add(unit("floor: EVALSHA of `return 1`", "a script call with acquire's keys and arguments as sent, no work",
                grant, "return 1"));
        cases.add(unit("floor + TIME", "one redis.call('TIME')", grant, "redis.call('TIME') return 1"));
        cases.add(unit("floor + 1 acl_check_cmd", "one redis.acl_check_cmd", grant,
                "redis.acl_check_cmd('HSET', KEYS[1], '0', '0') return 1"));
        cases.add(unit("floor + EXISTS", "one EXISTS of a missing key", grant,
                "redis.call('EXISTS', KEYS[2]) return 1"));
        cases.add(unit("floor + HMGET of 4 fields", "one HMGET of a missing hash", grant,
                "redis.call('HMGET', KEYS[1], 'owner', 'fence', 'chain', 'until') return 1"));
        cases.add(unit("floor + PUBLISH", "one PUBLISH nobody listens to", grant,
                "redis.call('PUBLISH', KEYS[1], 'x') return 1"));
        StringBuilder functions = new StringBuilder();
        for (int f = 0; f < 10; f++) {
            functions.append("local function f").append(f).append("(a, b) return a + b end ");
        }
        cases.add(unit("floor + 10 local functions", "ten include-style function definitions, none called", grant,
                functions + "return 1"));
        cases.add(unit("floor + HSET of 6 fields and PEXPIRE", "a new grant's writes", grant,
                "redis.call('HSET', KEYS[1], 'owner', 'o', 'holds', 1, 'watched', 1, '1', 'w', 'fence', 1, 'chain', 1)"
                        + " redis.call('PEXPIRE', KEYS[1], 30000) return 1"));
        cases.add(unit("floor + HSET of 6 fields and PEXPIRE, numbers as text", "what Redis's formatting of Lua numbers costs",
                grant, "redis.call('HSET', KEYS[1], 'owner', 'o', 'holds', '1', 'watched', '1', '1', 'w', 'fence', '1',"
                        + " 'chain', '1') redis.call('PEXPIRE', KEYS[1], '30000') return 1"));
        cases.add(unit("floor + HSET of 3 fields and PEXPIRE", "a new grant's writes, half the fields", grant,
                "redis.call('HSET', KEYS[1], 'owner', 'o', '1', 'w', 'fence', 1)"
                        + " redis.call('PEXPIRE', KEYS[1], 30000) return 1"));
        return grouped(cases);
    }

    /**
     * Each A/B variant and each part is compared with the row it takes something out of or adds to.
     */
    private static List<CostCase> grouped(List<CostCase> cases) {
        Map<String, String> references = Map.ofEntries(
                Map.entry("acquire: the same, no restart grace", "acquire: new grant, watchdog lease"),
                Map.entry("acquire: the same, no ACL guard", "acquire: new grant, watchdog lease"),
                Map.entry("acquire: new grant, fixed lease", "acquire: new grant, watchdog lease"),
                Map.entry("release: nobody waited, no ACL guard", "release: last hold, nobody waited"),
                Map.entry("release: nobody waited, keeps nothing", "release: last hold, nobody waited"),
                Map.entry("renew: one-field hashes (Redisson's shape), " + RENEW_BATCH + " per call, per lock",
                        "renew: " + RENEW_BATCH + " locks per call, per lock"));
        List<CostCase> grouped = new ArrayList<>();
        for (CostCase testCase : cases) {
            String name = testCase.name();
            String reference = references.get(name);
            if (reference == null && name.endsWith(", numbers as text")) {
                reference = name.replace(", numbers as text", "");
            }
            if (reference == null && name.startsWith("floor + ")) {
                reference = "floor: EVALSHA of `return 1`";
            }
            grouped.add((reference != null) ? testCase.comparedWith(reference) : testCase);
        }
        return grouped;
    }

    @SuppressWarnings("rawtypes")
    private CostCase renewal(String name, LockType type, int batch, RedisScript<List> otherScript) {
        IntFunction<CompletableFuture<Long>> take = i -> type.acquireCall(holder(type, i, "a"), watched("1"))
            .runAsync();
        IntFunction<CompletableFuture<Long>> renew = i -> {
            if ((i + 1) % batch != 0) {
                return CompletableFuture.completedFuture(1L);
            }
            List<LockTarget> holds = new ArrayList<>(batch);
            for (int k = i + 1 - batch; k <= i; k++) {
                holds.add(holder(type, k, "a"));
            }
            long all;
            if (otherScript == null) {
                int[] renewed = type.renew(holds, LEASE_NANOS);
                all = java.util.Arrays.stream(renewed).allMatch(code -> code == 1) ? 1 : 0;
            }
            else { // the same keys and arguments (the layout did not change), another script's text
                List<String> keys = new ArrayList<>();
                List<Object> args = new ArrayList<>(List.of(LEASE));
                holds.forEach(hold -> {
                    keys.add(PREFIX + ":{" + hold.key() + "}:lock");
                    args.add(hold.ownerToken());
                });
                List<?> replies = this.redis.execute(otherScript, keys, args.toArray());
                all = replies.stream().allMatch(code -> ((Number) code).longValue() == 1) ? 1 : 0;
            }
            return CompletableFuture.completedFuture(all);
        };
        return new CostCase(name, batch == 1 ? "the watchdog's renewal of one lock" : "a batch's share per lock",
                List.of(take), renew, equal(1));
    }

    private IntFunction<ScriptCall> refusedWaiter(LockType type) {
        return i -> type.acquireCall(holder(type, i, "b"), new LockType.Grant("1", LEASE_NANOS, true, false, true));
    }

    static CostCase of(String name, String measures, List<IntFunction<ScriptCall>> setup,
            IntFunction<ScriptCall> call, LongPredicate expected) {
        List<IntFunction<CompletableFuture<Long>>> steps = new ArrayList<>();
        setup.forEach(step -> steps.add(i -> step.apply(i).runAsync()));
        return new CostCase(name, measures, steps, i -> call.apply(i).runAsync(), expected);
    }

    /** A case whose script is {@code edit}ed; left out (and said so) when the edit no longer finds its text. */
    private void addVariant(List<CostCase> cases, String name, String measures, List<IntFunction<ScriptCall>> setup,
            IntFunction<ScriptCall> call, UnaryOperator<String> edit, LongPredicate expected) {
        String original = call.apply(0).script().getScriptAsString();
        if (edit.apply(original).equals(original)) {
            System.err.println("variant '" + name + "' left out: its edit no longer applies to the script");
            return;
        }
        cases.add(of(name, measures, setup, i -> {
            ScriptCall real = call.apply(i); // the text and arguments the lock's own row sends
            return new ScriptCall(real.runner(), variant(real.script(), edit), real.keys(), real.args());
        }, expected));
    }

    private CostCase unit(String name, String measures, IntFunction<ScriptCall> shapeOf, String text) {
        RedisScript<Long> script = new DefaultRedisScript<>(text, Long.class);
        return of(name, measures, List.of(), i -> {
            ScriptCall shape = shapeOf.apply(i);
            return new ScriptCall(shape.runner(), script, shape.keys(), shape.args());
        }, equal(1));
    }

    private RedisScript<Long> variant(RedisScript<Long> script, UnaryOperator<String> edit) {
        return this.variants.computeIfAbsent(script.getSha1() + edit,
                unused -> new DefaultRedisScript<>(edit.apply(script.getScriptAsString()), Long.class));
    }

    /** The ACL guard answers "granted" at once. */
    static String noGuard(String script) {
        return script.replace("local function refusedGrant(...)\n", "local function refusedGrant(...)\n"
                + "  do return nil end\n");
    }

    /**
     * A freeing release deletes the key instead of keeping the token and its run for a retried call (and the next
     * grant's token). Fails when release.lua's freeing writes of the hash (HDEL, then PEXPIRE) are not found, so that
     * the row never measures the script against itself.
     */
    static String keepNothing(String script) {
        String kept = script.replaceAll("redis\\.call\\('HDEL', KEYS\\[1\\], HOLD_ID, 'owner'[^\\n]*\\n\\s*"
                + "redis\\.call\\('PEXPIRE', KEYS\\[1\\], TOKEN_RETENTION_MILLIS\\)\\n", "redis.call('DEL', KEYS[1])\n");
        if (kept.equals(script)) {
            throw new IllegalStateException("release.lua's freeing writes changed: update ScriptCases.keepNothing");
        }
        return kept;
    }

    private static LockTarget holder(LockType type, int index, String owner) {
        String key = "k" + index;
        return new Holder(key, "owner-" + owner + "-" + index, type.releaseChannel(key));
    }

    private static LockType.Grant watched(String holdId) {
        return new LockType.Grant(holdId, LEASE_NANOS, true, false, false);
    }

    private static LockType.Grant fixed(String holdId) {
        return new LockType.Grant(holdId, LEASE_NANOS, false, false, false);
    }

    private static LockType.Release releaseOf(String holdId) {
        return new LockType.Release(holdId, 1, true, 0);
    }

    private static LongPredicate positive() {
        return reply -> reply > 0;
    }

    private static LongPredicate equal(long expected) {
        return reply -> reply == expected;
    }

    private record Holder(String key, String ownerToken, String releaseChannel) implements LockTarget {
    }
}
