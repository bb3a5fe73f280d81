package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;

/**
 * Which users run the scripts without the ACL guard ({@link AclGuard#grantsEverything}, on {@code ACL GETUSER}
 * replies as Redis 7 gives them), and what the variant without the guard is.
 */
class AclGuardRulesTest {

    @Test
    void onlyEveryCommandKeyAndChannelTogetherLeaveTheGuardOut() {
        assertThat(AclGuard.grantsEverything(reply("+@all", "~*", "&*"))).isTrue();
        assertThat(AclGuard.grantsEverything(map("+@all", "~*", "&*"))).isTrue();

        assertThat(AclGuard.grantsEverything(reply("+@all -flushall", "~*", "&*"))).isFalse();
        assertThat(AclGuard.grantsEverything(reply("+@all", "~distlock:*", "&*"))).isFalse();
        assertThat(AclGuard.grantsEverything(reply("+@all", "%R~*", "&*"))).isFalse();
        assertThat(AclGuard.grantsEverything(reply("+@all", "~*", ""))).isFalse();
        assertThat(AclGuard.grantsEverything(List.of())).isFalse();
        assertThat(AclGuard.grantsEverything(null)).isFalse();
    }

    @Test
    void redisWordsForARefusalInsideAScriptAreRecognisedOnEveryVersion() {
        // Redis 7.0 (the script's command, key and channel), 7.2 and Valkey, a client's own command, the guard's own
        for (String refusal : List.of(
                "ERR The user executing the script can't run this command or subcommand script: 5eb2, on "
                        + "@user_script:101.",
                "ERR The user executing the script can't access at least one of the keys mentioned in the command "
                        + "arguments script: 5eb2, on @user_script:101.",
                "ERR The user executing the script can't publish to the channel mentioned in the command",
                "ERR ACL failure in script: User locker has no permissions to run the 'pexpire' command script: 5eb2",
                "ERR ACL failure in script: User locker has no permissions to access one of the keys used as arguments",
                "NOPERM User locker has no permissions to run the 'evalsha' command",
                "NOPERM this user has no permissions to run the PEXPIRE command on the lock keys")) {
            assertThat(AclGuard.refusesPermission(refusal)).as(refusal).isTrue();
        }
        assertThat(AclGuard.refusesPermission("ERR Error running script: user_script:1: Script attempted to access "
                + "a non local key in a cluster node")).isFalse();
        assertThat(AclGuard.refusesPermission("Connection refused: /127.0.0.1:6379")).isFalse();
    }

    @Test
    void aRefusalPutsTheGuardBackForGoodAndOnlyThen() {
        AclGuard guard = new AclGuard();
        guard.noteFailure(new IllegalStateException("NOPERM no"));
        assertThat(guard.isOn()).as("on until decided").isTrue();
        guard.decided(true);
        assertThat(guard.select(Scripts.ACQUIRE.script()))
            .isSameAs(((GuardedScript<?>) Scripts.ACQUIRE.script()).unguarded());
        guard.noteFailure(new IllegalStateException("Command timed out after 2 second(s)"));
        assertThat(guard.isOn()).as("not a refusal").isFalse();
        guard.noteFailure(new RuntimeException("Error in execution", new IllegalStateException(
                "ERR ACL failure in script: User u has no permissions to run the 'pexpire' command")));
        assertThat(guard.isOn()).isTrue();
        assertThat(guard.select(Scripts.ACQUIRE.script())).isSameAs(Scripts.ACQUIRE.script());
        guard.decided(true);
        assertThat(guard.isOn()).as("a later start-up check keeps it on").isTrue();
    }

    @Test
    void eachScriptWithTheGuardHasAVariantWithoutItAndTheStartUpCheckHasNone() {
        for (ScriptLayout<?> layout : List.of(Scripts.ACQUIRE, Scripts.RELEASE, Scripts.HAND_OFF,
                Scripts.FAIR_ACQUIRE, Scripts.READ_ACQUIRE, Scripts.WRITE_ACQUIRE, Scripts.SEM_ACQUIRE, Scripts.SEM_RELEASE)) {
            GuardedScript<?> script = (GuardedScript<?>) layout.script();
            assertThat(script.getScriptAsString()).as(layout.file()).contains("redis.acl_check_cmd");
            assertThat(script.unguarded()).as(layout.file()).isNotNull();
            assertThat(script.unguarded().getScriptAsString()).as(layout.file()).doesNotContain("acl_check_cmd")
                .contains("local refusedGrant = false");
        }
        assertThat(((GuardedScript<?>) Scripts.RENEW.script()).unguarded()).as("renew.lua has no guard").isNull();
        assertThat(((GuardedScript<?>) Scripts.ACCESS_CHECK.script()).unguarded()).isNull();

        AclGuard guard = new AclGuard();
        assertThat(guard.select(Scripts.ACQUIRE.script())).isSameAs(Scripts.ACQUIRE.script());
    }

    /**
     * Without the guard {@code refusedGrant} is {@code false}, not a function: a script that called it bare would fail
     * for exactly the users the guard is left out for. Every call is written {@code refusedGrant and refusedGrant(}.
     */
    @Test
    void everyCheckIsCalledOnlyWhereTheGuardIsIn() throws Exception {
        Path folder = new ClassPathResource("dev/distlock/redis/script/acquire.lua").getFile().toPath().getParent();
        List<String> bare = new ArrayList<>();
        int checks = 0;
        try (var files = Files.list(folder)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".lua")).toList()) {
                String name = file.getFileName().toString();
                if (name.equals("acl-guard.lua")) {
                    continue;
                }
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    String code = line.contains("--") ? line.substring(0, line.indexOf("--")) : line;
                    checks += code.split("refusedGrant and refusedGrant\\(", -1).length - 1;
                    if (code.replace("refusedGrant and refusedGrant(", "").contains("refusedGrant(")) {
                        bare.add(name + ": " + line.strip());
                    }
                }
            }
        }
        assertThat(bare).isEmpty();
        assertThat(checks).as("the checks found").isGreaterThan(20);
    }

    /** An ACL GETUSER reply in RESP2's shape: names and values in turn, as the connection's byte arrays. */
    private static List<Object> reply(String commands, String keys, String channels) {
        List<Object> reply = new ArrayList<>();
        map(commands, keys, channels).forEach((name, value) -> {
            reply.add(name);
            reply.add(value);
        });
        return reply;
    }

    private static Map<Object, Object> map(String commands, String keys, String channels) {
        Map<Object, Object> reply = new LinkedHashMap<>();
        reply.put(bytes("flags"), List.of(bytes("on")));
        reply.put(bytes("passwords"), List.of());
        reply.put(bytes("commands"), bytes(commands));
        reply.put(bytes("keys"), bytes(keys));
        reply.put(bytes("channels"), bytes(channels));
        reply.put(bytes("selectors"), List.of());
        return reply;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
