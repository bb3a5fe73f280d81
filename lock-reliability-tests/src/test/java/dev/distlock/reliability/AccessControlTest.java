package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockPermissionException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;

/**
 * Redis with a password, and with an ACL user limited to the lock's key prefix and the commands the lock needs: the
 * lock works with that least-privilege user, and a user lacking a permission fails the start-up check clearly. The
 * scripts' ACL guard is left out only for a user granted everything, as read by the start-up check, and comes back
 * with the first refusal: what a script without the guard does when a command is revoked at run time (it may stop
 * half-way) is what tells which variant ran.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AccessControlTest {

    /** A fixed lease: its grant reads the clock for its hold's lease end, then writes the hash (HSET, then PEXPIRE). */
    private static final LockOptions FIXED_LEASE = LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30));

    private static RedisServers servers;

    private static RedisNode redis;

    private final Clients clients = new Clients();

    @BeforeAll
    static void startProtectedRedis() {
        servers = RedisServers.create();
        redis = servers.start(RedisNodeConfig.defaults().requirePass("admin-secret"));
    }

    @org.junit.jupiter.api.AfterAll
    static void stopRedis() throws Exception {
        servers.close();
    }

    @AfterEach
    void tearDown() {
        this.clients.close();
    }

    @Test
    void worksWithThePasswordOfTheDefaultUser() {
        RedisLockService locks = this.clients.service(this.clients.template(redis.port(), null, "admin-secret"),
                b -> b);
        locks.verifyAccess();
        try (LockHandle lock = locks.acquire("with-password")) {
            assertThat(lock.isHeld()).isTrue();
        }
    }

    @Test
    void worksWithALeastPrivilegeAclUser() throws Exception {
        RedisLockService admin = this.clients.service(this.clients.template(redis.port(), null, "admin-secret"),
                b -> b.keyPrefix("orders"));
        // the exact rules the README documents
        redis.call(("ACL SETUSER locker reset on >locker-secret " + admin.requiredAcl()).split(" "));

        RedisLockService first = this.clients.service(this.clients.template(redis.port(), "locker", "locker-secret"),
                b -> b.keyPrefix("orders").watchdogLease(Duration.ofMillis(600)));
        RedisLockService second = this.clients.service(this.clients.template(redis.port(), "locker", "locker-secret"),
                b -> b.keyPrefix("orders"));
        first.verifyAccess();

        LockHandle held = first.acquire("42"); // acquire.lua
        Thread.sleep(1500); // renew.lua runs twice meanwhile
        assertThat(held.isHeld()).isTrue();
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
                () -> second.acquire("42", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))));
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!redis.call("PUBSUB", "NUMSUB", "orders:{42}:released").endsWith("\n1") && System.nanoTime() < until) {
            Thread.sleep(10); // the waiter subscribes with the user's channel permission
        }
        held.release(); // release.lua publishes
        LockHandle next = waiter.get(20, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.release();
    }

    @Test
    void aUserMissingAPermissionFailsTheStartUpCheckWithTheGrantItNeeds() {
        redis.call("ACL", "SETUSER", "readonly", "reset", "on", ">readonly-secret", "~distlock:*", "+@connection",
                "+evalsha", "+eval", "+hget", "+pttl");
        RedisLockService locks = this.clients
            .service(this.clients.template(redis.port(), "readonly", "readonly-secret"), b -> b);
        assertThatThrownBy(locks::verifyAccess).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("no permissions to run the HSET command")
            .hasMessageContaining("ACL SETUSER <user> ~distlock:* &distlock:*");

        redis.call("ACL", "SETUSER", "wrongprefix", "reset", "on", ">wrong-secret", "~other:*", "&other:*",
                "+@all");
        RedisLockService elsewhere = this.clients
            .service(this.clients.template(redis.port(), "wrongprefix", "wrong-secret"), b -> b);
        assertThatThrownBy(elsewhere::verifyAccess).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("NOPERM");
    }

    @Test
    void theDocumentedAclGrantsNoClientAdministration() {
        RedisLockService admin = this.clients.service(this.clients.template(redis.port(), null, "admin-secret"),
                b -> b.keyPrefix("orders"));
        redis.call(("ACL SETUSER narrow reset on >narrow-secret " + admin.requiredAcl()).split(" "));
        assertThat(admin.requiredAcl()).doesNotContain("@connection");
        // ACL DRYRUN asks Redis itself whether the user could run the command
        for (String command : new String[] { "CLIENT PAUSE 1500", "CLIENT KILL USER default", "CLIENT NO-EVICT on" }) {
            String[] dryRun = ("ACL DRYRUN narrow " + command).split(" ");
            assertThat(redis.call(dryRun)).as(command).contains("no permissions");
        }
        RedisLockService narrow = this.clients.service(this.clients.template(redis.port(), "narrow", "narrow-secret"),
                b -> b.keyPrefix("orders"));
        narrow.verifyAccess();
        narrow.acquire("narrow").release();
    }

    @Test
    void aUserWithoutChannelPermissionFailsTheStartUpCheckNamingTheChannelGrant() {
        RedisLockService admin = this.clients.service(this.clients.template(redis.port(), null, "admin-secret"),
                b -> b);
        // as Redis 7's default acl-pubsub-default resetchannels makes a user created without '&distlock:*'
        String acl = admin.requiredAcl().replace("&distlock:* ", "");
        redis.call(("ACL SETUSER nochannel reset on >nochannel-secret resetchannels " + acl).split(" "));
        RedisLockService locks = this.clients
            .service(this.clients.template(redis.port(), "nochannel", "nochannel-secret"), b -> b);
        assertThatThrownBy(locks::verifyAccess).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("channel")
            .hasMessageContaining("ACL SETUSER <user> &distlock:*")
            .hasMessageNotContaining("could not be reached");
    }

    @Test
    void aCommandRevokedWhileRunningIsAPermissionErrorAndLeavesNoKeyWithoutExpiry() {
        RedisLockService admin = this.clients.service(this.clients.template(redis.port(), null, "admin-secret"),
                b -> b.keyPrefix("revoked"));
        redis.call(("ACL SETUSER revoked reset on >revoked-secret " + admin.requiredAcl()).split(" "));
        RedisLockService locks = this.clients.service(
                this.clients.template(redis.port(), "revoked", "revoked-secret"), b -> b.keyPrefix("revoked"));
        locks.acquire("first").release();

        redis.call("ACL", "SETUSER", "revoked", "-pexpire");
        try {
            // a fixed lease's grant writes the hash, then its expiry (a watched grant's SET ... PX is one command)
            assertThatThrownBy(() -> locks.acquire("second", FIXED_LEASE)).isInstanceOf(LockPermissionException.class)
                .hasMessageContaining("PEXPIRE")
                .hasMessageNotContaining("could not be reached");
            assertThat(redis.call("EXISTS", "revoked:{second}:lock")).as("no half-written lock").isEqualTo("0");

            redis.call("ACL", "SETUSER", "revoked", "-evalsha", "-eval");
            assertThatThrownBy(() -> locks.acquire("third")).isInstanceOf(LockPermissionException.class)
                .hasMessageContaining("evalsha");
        }
        finally {
            redis.call("ACL", "DELUSER", "revoked");
        }
    }

    @Test
    void aReadLockRefusedPartWayLeavesNothingWritten() {
        RedisLockService locks = revocableUser("rw");
        locks.acquire("first", LockOptions.defaults().withMode(LockMode.READ)).release();

        redis.call("ACL", "SETUSER", "revoked", "-pexpire");
        try {
            assertThatThrownBy(() -> locks.acquire("second", LockOptions.defaults().withMode(LockMode.READ)))
                .isInstanceOf(LockPermissionException.class)
                .hasMessageContaining("PEXPIRE");
            assertThat(redis.call("KEYS", "rw:{second}*")).as("nothing of the refused read lock").isEmpty();
        }
        finally {
            redis.call("ACL", "DELUSER", "revoked");
        }
    }

    @Test
    void aReleaseRefusedItsChannelFailsWholeAndTheLockStaysHeldWithItsExpiry() {
        RedisLockService locks = revocableUser("pub");
        LockHandle held = locks.acquire("channel");
        // as acquire.lua marks a refused waiter
        redis.call("HSET", "pub:{channel}:lock", "waiting", "1");

        redis.call("ACL", "SETUSER", "revoked", "resetchannels");
        try {
            assertThatThrownBy(held::release).isInstanceOf(LockPermissionException.class)
                .hasMessageContaining("PUBLISH");
            assertThat(redis.lockField("pub:{channel}:lock", "owner")).isEqualTo(held.ownerToken());
            assertThat(Long.parseLong(redis.call("PTTL", "pub:{channel}:lock"))).isPositive();
        }
        finally {
            redis.call("ACL", "DELUSER", "revoked");
        }
    }

    @Test
    void aUserGrantedEverythingRunsUnguardedUntilTheFirstRefusalThenGuarded() {
        RedisLockService locks = unrestrictedUser("all");
        try (LockHandle held = locks.acquire("works")) {
            assertThat(held.isHeld()).isTrue();
        }
        aRefusalPutsTheGuardBack("all", key -> locks.acquire(key, FIXED_LEASE));
    }

    @Test
    void aRefusalMetByANonBlockingCallPutsTheGuardBackToo() {
        RedisLockService locks = unrestrictedUser("async");
        aRefusalPutsTheGuardBack("async", key -> {
            try {
                locks.async().acquire(key, FIXED_LEASE).get(10, TimeUnit.SECONDS);
            }
            catch (ExecutionException ex) {
                throw ex.getCause(); // as the blocking call throws it
            }
        });
    }

    /**
     * For {@link #unrestrictedUser}'s service, running without the guard: a fixed lease's grant that meets a revoked
     * PEXPIRE stops half-way (its hash written, its expiry refused), and that refusal puts the guard back, so the next
     * grant is refused whole.
     */
    private void aRefusalPutsTheGuardBack(String prefix, Acquisition acquire) {
        try {
            redis.call("ACL", "SETUSER", "everything", "-pexpire");
            assertThatThrownBy(() -> acquire.of("first")).isInstanceOf(LockPermissionException.class);
            assertThat(redis.call("PTTL", prefix + ":{first}:lock"))
                .as("without the guard the grant stopped half-way: its hash written, its expiry refused")
                .isEqualTo("-1");

            assertThatThrownBy(() -> acquire.of("second")).isInstanceOf(LockPermissionException.class)
                .hasMessageContaining("PEXPIRE command on the lock keys");
            assertThat(redis.call("EXISTS", prefix + ":{second}:lock")).as("guarded again: nothing written")
                .isEqualTo("0");
        }
        finally {
            redis.call("DEL", prefix + ":{first}:lock");
            redis.call("ACL", "DELUSER", "everything");
        }
    }

    /** One acquisition of {@code key}, failing as its caller sees the failure. */
    private interface Acquisition {

        void of(String key) throws Throwable;
    }

    @Test
    void aUserGrantedExactlyWhatTheLockNeedsStaysGuardedAfterTheStartUpCheck() {
        RedisLockService locks = revocableUser("exact");
        locks.verifyAccess();
        locks.acquire("works").release();

        redis.call("ACL", "SETUSER", "revoked", "-pexpire");
        try {
            assertThatThrownBy(() -> locks.acquire("first", FIXED_LEASE)).isInstanceOf(LockPermissionException.class)
                .hasMessageContaining("PEXPIRE command on the lock keys");
            assertThat(redis.call("EXISTS", "exact:{first}:lock")).as("nothing half-written").isEqualTo("0");
        }
        finally {
            redis.call("ACL", "DELUSER", "revoked");
        }
    }

    @Test
    void aWatchedGrantAndReleaseRefusedTheirWritesWriteNothing() {
        RedisLockService locks = revocableUser("single");
        locks.acquire("works").release(); // the restart grace's marker is written while SET is granted
        LockHandle held = locks.acquire("held");
        String before = redis.call("HGETALL", "single:{held}:lock");

        redis.call("ACL", "SETUSER", "revoked", "-hset", "-set");
        try {
            assertThatThrownBy(() -> locks.acquire("first")).isInstanceOf(LockPermissionException.class)
                .hasMessageContaining("HSET command on the lock keys");
            assertThat(redis.call("EXISTS", "single:{first}:lock")).as("nothing written").isEqualTo("0");
            assertThatThrownBy(held::release).isInstanceOf(LockPermissionException.class)
                .hasMessageContaining("SET command on the lock keys"); // the freed mark's
            assertThat(redis.call("HGETALL", "single:{held}:lock")).as("still held, as it was").isEqualTo(before);
            assertThat(Long.parseLong(redis.call("PTTL", "single:{held}:lock"))).isPositive();
        }
        finally {
            redis.call("ACL", "DELUSER", "revoked");
        }
    }

    /**
     * A lock service as the ACL user {@code everything}, granted every command, key and channel, after the start-up
     * check: its scripts run without the ACL guard (see LockScripts#decideAclGuard) until a refusal puts it back.
     */
    private RedisLockService unrestrictedUser(String prefix) {
        redis.call("ACL", "SETUSER", "everything", "reset", "on", ">everything-secret", "+@all", "~*", "&*");
        RedisLockService locks = this.clients.service(
                this.clients.template(redis.port(), "everything", "everything-secret"), b -> b.keyPrefix(prefix));
        locks.verifyAccess();
        return locks;
    }

    /** A lock service as the ACL user {@code revoked}, granted exactly what the locks under {@code prefix} need. */
    private RedisLockService revocableUser(String prefix) {
        RedisLockService admin = this.clients.service(this.clients.template(redis.port(), null, "admin-secret"),
                b -> b.keyPrefix(prefix));
        redis.call(("ACL SETUSER revoked reset on >revoked-secret " + admin.requiredAcl()).split(" "));
        return this.clients.service(this.clients.template(redis.port(), "revoked", "revoked-secret"),
                b -> b.keyPrefix(prefix));
    }

    @Test
    void ownerTokensAreUnguessable128BitValues() {
        RedisLockService locks = this.clients.service(this.clients.template(redis.port(), null, "admin-secret"),
                b -> b);
        Set<String> tokens = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            try (LockHandle lock = locks.acquire("token:" + i)) {
                assertThat(lock.ownerToken()).matches("[0-9a-f]{32}");
                tokens.add(lock.ownerToken());
            }
        }
        assertThat(tokens).hasSize(500);
    }
}
