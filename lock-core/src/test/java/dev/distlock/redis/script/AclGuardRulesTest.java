package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

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
    void eachScriptWithTheGuardHasAVariantWithoutItAndTheStartUpCheckHasNone() {
        for (ScriptLayout<?> layout : List.of(LockScripts.ACQUIRE, LockScripts.RELEASE, LockScripts.HAND_OFF,
                FairLock.ACQUIRE, ReadLock.ACQUIRE, WriteLock.ACQUIRE, SemaphoreLock.ACQUIRE, SemaphoreLock.RELEASE)) {
            GuardedScript<?> script = (GuardedScript<?>) layout.script();
            assertThat(script.getScriptAsString()).as(layout.file()).contains("redis.acl_check_cmd");
            assertThat(script.unguarded()).as(layout.file()).isNotNull();
            assertThat(script.unguarded().getScriptAsString()).as(layout.file()).doesNotContain("acl_check_cmd")
                .contains("local function refusedGrant()");
        }
        assertThat(((GuardedScript<?>) LockScripts.RENEW.script()).unguarded()).as("renew.lua has no guard").isNull();
        assertThat(((GuardedScript<?>) LockScripts.ACCESS_CHECK.script()).unguarded()).isNull();

        AclGuard guard = new AclGuard();
        assertThat(guard.select(LockScripts.ACQUIRE.script())).isSameAs(LockScripts.ACQUIRE.script());
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
