package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;

/**
 * Each way a real server refuses the lock's user, through Lettuce and Spring Data Redis as the lock meets it, is read
 * as a refusal of the right kind (credentials, channel, command or key) on every server the machine has: the run's
 * server ({@code distlock.test.redis-server}, by default the embedded Redis 7.0), Debian's Redis 7.0 and Valkey 8.0.
 * Redis 7.0 words refusals "this user has no permissions ..." and, inside a script, "The user executing the script
 * can't ..."; Redis 7.2+ and Valkey "User &lt;name&gt; has no permissions ...", "No permissions to access a key" and,
 * inside a script, "ACL failure in script: ...".
 */
@TestInstance(Lifecycle.PER_CLASS)
class PermissionRefusalsTest {

    private static final String ADMIN_PASSWORD = "admin-secret";

    private final RedisServers servers = RedisServers.create();

    private final Map<String, RedisNode> nodes = new HashMap<>();

    private final List<AutoCloseable> clients = new ArrayList<>();

    /** The run's server, then each other server installed here (absent ones are skipped, saying so). */
    static Stream<String> servers() {
        return Stream.of("the run's server", "/usr/bin/redis-server", "/usr/bin/valkey-server");
    }

    @AfterAll
    void close() throws Exception {
        for (AutoCloseable client : this.clients) {
            client.close();
        }
        this.servers.close();
    }

    @ParameterizedTest
    @MethodSource("servers")
    void aClientsOwnCommandKeyOrChannelRefused(String server) {
        StringRedisTemplate locker = template(server, "locker", "locker-secret");

        assertCommandOrKey(server, catchThrowable(() -> locker.opsForValue().set("lock:a", "1")));
        assertCommandOrKey(server, catchThrowable(() -> locker.opsForValue().get("other")));
        assertChannel(server, catchThrowable(() -> locker.convertAndSend("other", "x")));
    }

    @ParameterizedTest
    @MethodSource("servers")
    void aScriptsCommandKeyOrChannelRefused(String server) {
        StringRedisTemplate locker = template(server, "locker", "locker-secret");

        assertCommandOrKey(server, catchThrowable(() -> locker.execute(
                new DefaultRedisScript<>("return redis.call('SET', KEYS[1], '1')", String.class), List.of("lock:a"))));
        assertCommandOrKey(server, catchThrowable(() -> locker.execute(
                new DefaultRedisScript<>("return redis.call('GET', 'other')", String.class), List.of())));
        assertChannel(server, catchThrowable(() -> locker.execute(
                new DefaultRedisScript<>("return redis.call('PUBLISH', 'other', 'x')", Long.class), List.of())));
    }

    @ParameterizedTest
    @MethodSource("servers")
    void credentialsRefused(String server) {
        for (StringRedisTemplate refused : List.of(template(server, "locker", "wrong"), template(server, "nobody", "x"),
                template(server, null, null))) {
            Throwable failure = catchThrowable(() -> refused.opsForValue().get("lock:a"));
            for (int retry = 0; retry < 4 && closedEarly(failure); retry++) {
                failure = catchThrowable(() -> refused.opsForValue().get("lock:a"));
            }
            String refusal = PermissionRefusals.of(failure);
            assertThat(refusal).as(server + ": " + chain(failure)).isNotNull();
            assertThat(PermissionRefusals.ofCredentials(refusal)).as(refusal).isTrue();
        }
    }

    /**
     * Whether Lettuce reported its own close of a connection whose handshake it failed, rather than Redis's answer:
     * the two race, and Redis's words are then lost (see the starter's LockServiceLifecycle), so the call is made again.
     * Lettuce words its close "closed prematurely", or, when the close has already emptied the channel's pipeline as
     * the connect completes, "RedisHandshakeHandler not registered".
     */
    private static boolean closedEarly(Throwable failure) {
        String chain = chain(failure);
        return chain.contains("Connection closed prematurely") || chain.contains("RedisHandshakeHandler not registered");
    }

    private static String chain(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            text.append(" <- ").append(cause);
        }
        return text.toString();
    }

    /** Redis 7.2+ and Valkey name the user in a command refusal: a name is not a word of the refusal. */
    @ParameterizedTest
    @MethodSource("servers")
    void aUsersNameIsNotReadAsTheKindOfRefusal(String server) {
        StringRedisTemplate events = template(server, "events-channel", "events-secret");
        StringRedisTemplate reader = template(server, "NOAUTH-reader", "reader-secret");

        assertCommandOrKey(server, catchThrowable(() -> events.opsForValue().set("lock:a", "1")));
        assertCommandOrKey(server, catchThrowable(() -> reader.opsForValue().set("lock:a", "1")));
    }

    /** The start-up check tells a user named after channels who may not run EVALSHA to grant commands, not channels. */
    @ParameterizedTest
    @MethodSource("servers")
    void theStartUpCheckNamesTheCommandGrantWhateverTheUsersName(String server) {
        RedisNode node = node(server);
        String acl = AccessCheck.requiredAcl("distlock").replace(" +evalsha", "").replace(" +eval", "");
        node.call(("ACL SETUSER release-channel-reader reset on >reader-secret " + acl).split(" "));
        RedisLockService locks = RedisLockService.builder(template(server, "release-channel-reader", "reader-secret"))
            .restartGrace(Duration.ZERO)
            .build();
        this.clients.add(locks);

        assertThatThrownBy(locks::verifyAccess).as(server).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("may not run a command the lock needs")
            .hasMessageContaining("evalsha")
            .hasMessageNotContaining("release channels");
    }

    private static void assertCommandOrKey(String server, Throwable failure) {
        String refusal = PermissionRefusals.of(failure);
        assertThat(refusal).as(server + ": " + failure).isNotNull();
        assertThat(PermissionRefusals.ofCredentials(refusal)).as(server + ": " + refusal).isFalse();
        assertThat(PermissionRefusals.ofChannel(refusal)).as(server + ": " + refusal).isFalse();
    }

    private static void assertChannel(String server, Throwable failure) {
        String refusal = PermissionRefusals.of(failure);
        assertThat(refusal).as(server + ": " + failure).isNotNull();
        assertThat(PermissionRefusals.ofCredentials(refusal)).as(server + ": " + refusal).isFalse();
        assertThat(PermissionRefusals.ofChannel(refusal)).as(server + ": " + refusal).isTrue();
    }

    /** A client of {@code server}'s node logging in as {@code user} (null: the default user) with {@code password}. */
    private StringRedisTemplate template(String server, String user, String password) {
        RedisStandaloneConfiguration address = new RedisStandaloneConfiguration("127.0.0.1", node(server).port());
        address.setUsername(user);
        if (password != null) {
            address.setPassword(password);
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(address,
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        this.clients.add(factory::destroy);
        return new StringRedisTemplate(factory);
    }

    /**
     * One node per server, its default user protected by a password, with users granted the keys and channels
     * {@code lock:*} and a few commands, but never SET (the commands each test has refused).
     */
    private RedisNode node(String server) {
        return this.nodes.computeIfAbsent(server, name -> {
            RedisNodeConfig config = RedisNodeConfig.defaults().requirePass(ADMIN_PASSWORD);
            if (name.startsWith("/")) {
                Path executable = Paths.get(name);
                assumeTrue(Files.isExecutable(executable), executable + " is not installed");
                config = config.launchedWith(executable, Map.of());
            }
            RedisNode node = this.servers.start(config);
            for (String user : List.of("locker", "events-channel", "NOAUTH-reader")) {
                String password = user.equals("locker") ? "locker-secret"
                        : user.equals("events-channel") ? "events-secret" : "reader-secret";
                node.call("ACL", "SETUSER", user, "reset", "on", ">" + password, "~lock:*", "&lock:*", "+@connection",
                        "+get", "+eval", "+evalsha", "+publish");
            }
            return node;
        });
    }
}
