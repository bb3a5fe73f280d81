package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;

/**
 * The scripts' headers and the Java side name the same arguments at the same positions (no Redis needed): every script
 * that takes arguments has a Java layout, every layout matches its header, shared arguments keep one position in
 * each family, and no script body names an argument by position.
 */
class ScriptLayoutTest {

    /** Every script the lock runs, by file: the Java layouts, which {@link ScriptLayout#load} checked on loading. */
    private static Map<String, ScriptLayout<?>> javaLayouts() {
        Map<String, ScriptLayout<?>> layouts = new TreeMap<>();
        for (ScriptLayout<?> layout : List.of(Scripts.ACQUIRE, Scripts.RELEASE, Scripts.HAND_OFF,
                Scripts.RENEW, Scripts.ACCESS_CHECK, Scripts.FAIR_ACQUIRE, Scripts.FAIR_RELEASE, Scripts.FAIR_LEAVE,
                Scripts.READ_ACQUIRE, Scripts.READ_RELEASE, Scripts.READ_RENEW, Scripts.WRITE_ACQUIRE, Scripts.WRITE_WITHDRAW,
                Scripts.SEM_ACQUIRE, Scripts.SEM_RELEASE, Scripts.SEM_LEAVE, Scripts.SEM_RENEW,
                // dev.distlock.redis.quorum.QuorumNode's, loaded the same way
                ScriptLayout.load("quorum-fence.lua", Long.class, ScriptArgument.OWNER_TOKEN,
                        ScriptArgument.RAISE_TO, ScriptArgument.TOKEN_RETENTION_MILLIS))) {
            layouts.put(layout.file(), layout);
        }
        return layouts;
    }

    @Test
    void durationsFlagsAndNumbersBecomeRedisTextWhereTheArgumentsAreBuilt() {
        // whole ms, rounded up: Redis must not end a lease or a delay before the client does
        Object[] args = handOffArguments(Duration.ofMillis(30_000).toNanos() + 1);
        assertThat(args).containsExactly("a", "1", "42", "b", "1", "30001", "1", "0", "60000");
        assertThat(handOffArguments(Duration.ofMillis(30_000).toNanos())[5]).isEqualTo("30000");
        Object[] again = handOffArguments(Duration.ofMillis(30_001).toNanos());
        assertThat(again[5]).as("a service's fixed lease is formatted once, not per call").isSameAs(args[5]);
        assertThat(again[8]).as("and so is its token retention").isSameAs(args[8]);
    }

    private static Object[] handOffArguments(long leaseNanos) {
        return Scripts.HAND_OFF.newArguments()
            .set(ScriptArgument.OWNER_TOKEN, "a")
            .set(ScriptArgument.HOLD_ID, "1")
            .set(ScriptArgument.FENCING_TOKEN, 42L)
            .set(ScriptArgument.NEW_OWNER_TOKEN, "b")
            .set(ScriptArgument.NEW_HOLD_ID, "1")
            .setMillis(ScriptArgument.LEASE_MILLIS, leaseNanos)
            .set(ScriptArgument.WATCHDOG, true)
            .set(ScriptArgument.LAST_OF_RUN, false)
            .setMillis(ScriptArgument.TOKEN_RETENTION_MILLIS, Duration.ofMinutes(1))
            .toArray();
    }

    @Test
    void everyScriptWithArgumentsHasAJavaLayoutThatMatchesItsHeader() throws IOException {
        List<String> scripts = new ArrayList<>();
        for (Path file : scriptFiles()) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            if (text.contains("\n--#arguments")) {
                scripts.add(file.getFileName().toString());
            }
        }
        Map<String, ScriptLayout<?>> layouts = javaLayouts();
        assertThat(layouts.keySet()).containsExactlyInAnyOrderElementsOf(scripts);
        layouts.forEach((file, layout) -> assertThat(
                ScriptLayout.declaredArguments(layout.script().getScriptAsString()).stream()
                    .map(name -> name.replace("...", ""))
                    .toList()).as(file)
            .isEqualTo(layout.arguments().stream().map(Enum::name).toList()));
    }

    @Test
    void aHeaderThatDisagreesWithTheJavaSideIsRefusedOnLoading() {
        assertThatThrownBy(() -> ScriptLayout.load("acquire.lua", Long.class, ScriptArgument.OWNER_TOKEN,
                ScriptArgument.LEASE_MILLIS, ScriptArgument.HOLD_ID, ScriptArgument.WATCHDOG, ScriptArgument.REENTRY,
                ScriptArgument.RESTART_GRACE_MILLIS, ScriptArgument.WAITING))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("acquire.lua")
            .hasMessageContaining("[OWNER_TOKEN, HOLD_ID, LEASE_MILLIS");
        assertThatThrownBy(() -> ScriptLayout.load("release.lua", Long.class, ScriptArgument.OWNER_TOKEN))
            .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ScriptLayout.declaredArguments("-- ARGV[1]  OWNER_TOKEN\n-- ARGV[3]  HOLD_ID\n"))
            .as("a gap in the positions").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void sharedArgumentsKeepOnePositionInEachFamily() {
        for (ScriptLayout<?> grant : List.of(Scripts.ACQUIRE, Scripts.FAIR_ACQUIRE, Scripts.READ_ACQUIRE,
                Scripts.WRITE_ACQUIRE, Scripts.SEM_ACQUIRE)) {
            assertThat(grant.arguments().subList(0, Scripts.GRANT_ARGUMENTS.size())).as(grant.file())
                .isEqualTo(Scripts.GRANT_ARGUMENTS);
        }
        for (ScriptLayout<?> release : List.of(Scripts.RELEASE, Scripts.FAIR_RELEASE, Scripts.READ_RELEASE,
                Scripts.SEM_RELEASE)) {
            assertThat(release.arguments().subList(0, Scripts.RELEASE_ARGUMENTS.size())).as(release.file())
                .isEqualTo(Scripts.RELEASE_ARGUMENTS);
        }
        // the token retention, wherever a grant script takes it, and the place lease of the two waiting-place scripts
        assertThat(Scripts.READ_ACQUIRE.arguments().indexOf(ScriptArgument.TOKEN_RETENTION_MILLIS))
            .isEqualTo(Scripts.WRITE_ACQUIRE.arguments().indexOf(ScriptArgument.TOKEN_RETENTION_MILLIS));
        assertThat(Scripts.SEM_ACQUIRE.arguments().indexOf(ScriptArgument.TOKEN_RETENTION_MILLIS))
            .isEqualTo(Scripts.READ_ACQUIRE.arguments().indexOf(ScriptArgument.TOKEN_RETENTION_MILLIS));
        // the release message, wherever a release script takes it
        for (ScriptLayout<?> release : List.of(Scripts.READ_RELEASE, Scripts.SEM_RELEASE)) {
            assertThat(release.arguments().indexOf(ScriptArgument.MESSAGE)).as(release.file())
                .isEqualTo(Scripts.RELEASE.arguments().indexOf(ScriptArgument.MESSAGE));
        }
    }

    @Test
    void noScriptBodyNamesAnArgumentByPosition() throws IOException {
        for (Path file : scriptFiles()) {
            List<String> body = Files.readAllLines(file, StandardCharsets.UTF_8)
                .stream()
                .filter(line -> !line.startsWith("--"))
                .filter(line -> line.contains("ARGV["))
                .toList();
            // a batch script's per-key argument is ARGV[i + n], as its header's ARGV[n + 1...] says
            assertThat(body).as(file.getFileName().toString())
                .allSatisfy(line -> assertThat(line).containsPattern("ARGV\\[i \\+ \\d\\]"));
        }
    }

    @Test
    void theArgumentsAreNamedInTheScriptAndEachIncludeAppearsOnce() {
        String acquire = Scripts.ACQUIRE.script().getScriptAsString();
        assertThat(acquire).contains("local OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY, "
                + "RESTART_GRACE_MILLIS, WAITING = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]");
        assertThat(acquire).doesNotContain("--#");
        // reenter.lua and new-grant.lua share add-hold.lua's and extend-lease.lua's functions: defined once
        assertThat(acquire.split("local function addHold\\(", -1)).hasSize(2);
        assertThat(acquire.split("local extendLease\n", -1)).hasSize(2);
    }

    @Test
    void anIndentedIncludeIsLocalToItsBlockSoTheTopLevelIncludesTheFileAgain() {
        String text = ScriptLayout.read("test-nested-include.lua");
        // once inside the block, once at the top level after it; the top-level one makes the later nested one moot
        assertThat(text.split("local extendLease\n", -1)).hasSize(3);
        assertThat(text.indexOf("local extendLease\n")).isBetween(text.indexOf("if ARGV[1] == 'x' then"),
                text.indexOf("\nend\n"));
        assertThat(text).doesNotContain("--#");
    }

    @Test
    void aLockCyclesAcquireAndReleaseDefineNoFunctionOnlyOtherPathsUse() {
        // a closure per function definition a call runs: a re-entry's, a delayed release's and a fresh key's
        // functions sit in their branches, and the release's other paths' after the common path's return
        String acquire = Scripts.ACQUIRE.script().getScriptAsString();
        int reentryBranch = acquire.indexOf("if owner == OWNER_TOKEN then");
        assertThat(reentryBranch).isPositive();
        assertThat(acquire.indexOf("local function reenter(")).isGreaterThan(reentryBranch);
        assertThat(acquire.indexOf("local function addHold(")).isGreaterThan(reentryBranch);
        int freshKeyBranch = acquire.indexOf("if not lastFence then");
        assertThat(freshKeyBranch).isPositive();
        assertThat(acquire.indexOf("local function restartGraceLeft(")).isGreaterThan(freshKeyBranch);
        int delayedReleaseBranch = acquire.indexOf("if owner == '(released)' then");
        assertThat(delayedReleaseBranch).isPositive();
        assertThat(acquire.indexOf("local function heldFor(")).isGreaterThan(delayedReleaseBranch);
        String release = Scripts.RELEASE.script().getScriptAsString();
        int commonPathEnd = release.indexOf("\n  return 1\nend\n");
        assertThat(commonPathEnd).isPositive().isLessThan(release.indexOf("local function notOwnerReply("));
        assertThat(release.indexOf("local function keepLongestLease(")).isGreaterThan(commonPathEnd);
    }

    private static List<Path> scriptFiles() throws IOException {
        Path folder = new ClassPathResource("dev/distlock/redis/script/acquire.lua").getFile().toPath().getParent();
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(file -> file.toString().endsWith(".lua")).sorted().toList();
        }
    }
}
