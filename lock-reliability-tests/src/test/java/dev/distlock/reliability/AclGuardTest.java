package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockPermissionException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;

/**
 * The lock scripts' ACL guard is left out only for a user whose ACL grants every command, key and channel, as read at
 * start-up (verifyAccess), and comes back with the first NOPERM: what a script without the guard does when a command is
 * revoked at run time (it may stop half-way) is what tells which variant ran.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AclGuardTest {

    private static RedisServers servers;

    private static RedisNode redis;

    private final Clients clients = new Clients();

    @BeforeAll
    static void startProtectedRedis() {
        servers = RedisServers.create();
        redis = servers.start(RedisNodeConfig.defaults().requirePass("admin-secret"));
    }

    @AfterAll
    static void stopRedis() throws Exception {
        servers.close();
    }

    @AfterEach
    void tearDown() {
        this.clients.close();
        redis.call("ACL", "DELUSER", "everything", "exact");
    }

    @Test
    void aUserGrantedEverythingRunsUnguardedUntilTheFirstRefusalThenGuarded() {
        redis.call("ACL", "SETUSER", "everything", "reset", "on", ">everything-secret", "+@all", "~*", "&*");
        RedisLockService locks = this.clients.service(
                this.clients.template(redis.port(), "everything", "everything-secret"), b -> b.keyPrefix("all"));
        locks.verifyAccess();
        try (LockHandle held = locks.acquire("works")) {
            assertThat(held.isHeld()).isTrue();
        }

        redis.call("ACL", "SETUSER", "everything", "-pexpire");
        assertThatThrownBy(() -> locks.acquire("first")).isInstanceOf(LockPermissionException.class);
        assertThat(redis.call("PTTL", "all:{first}:lock"))
            .as("without the guard the grant stopped half-way: its hash written, its expiry refused").isEqualTo("-1");

        assertThatThrownBy(() -> locks.acquire("second")).isInstanceOf(LockPermissionException.class)
            .hasMessageContaining("PEXPIRE command on the lock keys");
        assertThat(redis.call("EXISTS", "all:{second}:lock")).as("guarded again: nothing written").isEqualTo("0");
        redis.call("DEL", "all:{first}:lock");
    }

    @Test
    void aRefusalMetByANonBlockingCallPutsTheGuardBackToo() {
        redis.call("ACL", "SETUSER", "everything", "reset", "on", ">everything-secret", "+@all", "~*", "&*");
        RedisLockService locks = this.clients.service(
                this.clients.template(redis.port(), "everything", "everything-secret"), b -> b.keyPrefix("async"));
        locks.verifyAccess();

        redis.call("ACL", "SETUSER", "everything", "-pexpire");
        assertThatThrownBy(() -> locks.async().acquire("first", LockOptions.defaults()).get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(LockPermissionException.class);
        assertThat(redis.call("PTTL", "async:{first}:lock")).as("unguarded: stopped half-way").isEqualTo("-1");

        assertThatThrownBy(() -> locks.async().acquire("second", LockOptions.defaults()).get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(LockPermissionException.class)
            .hasMessageContaining("PEXPIRE command on the lock keys");
        assertThat(redis.call("EXISTS", "async:{second}:lock")).as("guarded again: nothing written").isEqualTo("0");
        redis.call("DEL", "async:{first}:lock");
    }

    @Test
    void aUserGrantedExactlyWhatTheLockNeedsStaysGuarded() {
        RedisLockService admin = this.clients.service(this.clients.template(redis.port(), null, "admin-secret"),
                b -> b.keyPrefix("exact"));
        redis.call(("ACL SETUSER exact reset on >exact-secret " + admin.requiredAcl()).split(" "));
        RedisLockService locks = this.clients.service(this.clients.template(redis.port(), "exact", "exact-secret"),
                b -> b.keyPrefix("exact"));
        locks.verifyAccess();
        locks.acquire("works").release();

        redis.call("ACL", "SETUSER", "exact", "-pexpire");
        assertThatThrownBy(() -> locks.acquire("first")).isInstanceOf(LockPermissionException.class)
            .hasMessageContaining("PEXPIRE command on the lock keys");
        assertThat(redis.call("EXISTS", "exact:{first}:lock")).as("nothing half-written").isEqualTo("0");
    }
}
