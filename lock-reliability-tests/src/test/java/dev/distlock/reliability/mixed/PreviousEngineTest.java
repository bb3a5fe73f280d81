package dev.distlock.reliability.mixed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The fault explorer's mixed mode runs the previous layout's engine in the explorer's JVM: its service's classes and
 * Lua scripts come from the previous build's class loader, only the API package is shared, and it contends with a
 * current service on one Redis with the API's own exceptions. An API that differs from today's stops the mode.
 */
@RedisTest
class PreviousEngineTest {

    @Test
    void thePreviousServiceRunsThePreviousCodeBesideTheCurrentOne(RedisNode redis) throws Exception {
        PreviousEngine engine = PreviousEngine.load();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", redis.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        LockService previous = null;
        RedisLockService current = null;
        try {
            StringRedisTemplate template = new StringRedisTemplate(factory);
            previous = engine.redisService(template, Duration.ofMillis(1500), Duration.ofSeconds(2));
            current = RedisLockService.builder(template).restartGrace(Duration.ZERO).build();

            // the engine and its scripts are the previous build's, the API is today's
            assertThat(previous.getClass().getName()).isEqualTo(RedisLockService.class.getName());
            assertThat(previous.getClass()).isNotSameAs(RedisLockService.class);
            assertThat(previous.getClass().getClassLoader()).isSameAs(engine.loader());
            assertThat(Class.forName("dev.distlock.redis.script.ScriptLayout", false, engine.loader())
                .getClassLoader()).isSameAs(engine.loader());
            String script = "dev/distlock/redis/script/acquire.lua";
            assertThat(engine.loader().getResource(script).toString()).contains("distlock-previous-layout")
                .isNotEqualTo(RedisLockService.class.getClassLoader().getResource(script).toString());
            assertThat(Class.forName("dev.distlock.LockService", false, engine.loader())).isSameAs(LockService.class);
            assertThat(PreviousEngine.ChildFirst.shared("dev.distlock.LockOptions")).isTrue();
            assertThat(PreviousEngine.ChildFirst.shared("dev.distlock.reactor.ReactiveLocks")).isFalse();
            Path classes = Path.of(engine.loader().getResource("dev/distlock/LockService.class").toURI()).getParent()
                .getParent().getParent();
            assertThat(PreviousApi.differences(classes, getClass().getClassLoader())).isEmpty();

            // the two contend on one key, with the API's exceptions and rising fencing tokens
            long first;
            try (LockHandle held = previous.acquire("mixed:explorer", LockOptions.defaults())) {
                first = held.fencingToken();
                RedisLockService currentService = current;
                assertThat(current.tryAcquire("mixed:explorer", LockOptions.defaults())).isEmpty();
                assertThatThrownBy(() -> currentService.acquire("mixed:explorer",
                        LockOptions.defaults().withWaitTime(Duration.ofMillis(200))))
                    .isInstanceOf(LockTimeoutException.class);
            }
            try (LockHandle next = current.acquire("mixed:explorer", LockOptions.defaults())) {
                assertThat(next.fencingToken()).isGreaterThan(first);
                Optional<LockHandle> refused = previous.tryAcquire("mixed:explorer", LockOptions.defaults());
                assertThat(refused).isEmpty();
            }
        }
        finally {
            if (previous != null) {
                ((AutoCloseable) previous).close();
            }
            if (current != null) {
                current.close();
            }
            factory.destroy();
        }
    }

    @Test
    void anApiThatDiffersFromTodaysIsRefusedWithEveryDifference(@TempDir Path work) throws Exception {
        // a "previous" API package in which the timeout had another parent and members today's lacks, the lock
        // modes another constant, and an interface fewer methods than today's
        Path sources = Files.createDirectories(work.resolve("src/dev/distlock"));
        Files.writeString(sources.resolve("LockTimeoutException.java"), """
                package dev.distlock;
                public class LockTimeoutException extends RuntimeException {
                    public LockTimeoutException(String key) { super(key); }
                    public long waitedMillis() { return 0; }
                }
                """);
        Files.writeString(sources.resolve("LockMode.java"), "package dev.distlock; public enum LockMode { SHARED }");
        Files.writeString(sources.resolve("LockInspection.java"),
                "package dev.distlock; public interface LockInspection { }");
        Path classes = Files.createDirectories(work.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        try (Stream<Path> files = Files.list(sources)) {
            assertThat(javac.run(null, null, null, Stream.concat(Stream.of("-d", classes.toString()),
                    files.map(Path::toString)).toArray(String[]::new))).isZero();
        }

        List<String> differences = PreviousApi.differences(classes, getClass().getClassLoader());

        assertThat(differences).contains(
                "dev.distlock.LockTimeoutException: supertypes [java.lang.RuntimeException] became "
                        + "[dev.distlock.LockException]",
                "dev.distlock.LockTimeoutException: long waitedMillis() is gone",
                "dev.distlock.LockTimeoutException: new(java.lang.String) is gone",
                "dev.distlock.LockMode: field dev.distlock.LockMode SHARED is gone")
            .anyMatch(d -> d.startsWith("dev.distlock.LockInspection: abstract ")
                    && d.endsWith(" is new (the previous engine does not implement it)"));
    }
}
