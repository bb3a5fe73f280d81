package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.testcontainers.context.ImportTestcontainers;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

import dev.distlock.LockHandle;
import dev.distlock.LockService;

/**
 * The example of docs/testing.md with Docker: a Redis container started by Spring Boot's Testcontainers support and
 * connected with {@code @ServiceConnection}, the restart grace turned off since the container is new. Skipped where
 * Docker does not run (as on this project's CI machines, where {@link EmbeddedRedisExampleTest} covers the same).
 */
@EnabledIf("dockerRuns")
@SpringBootTest(webEnvironment = WebEnvironment.NONE, properties = "distlock.safety.restart-grace=0s")
@ImportTestcontainers
class TestcontainersRedisExampleTest {

    @ServiceConnection(name = "redis")
    static GenericContainer<?> redis = new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);

    @Autowired
    private LockService locks;

    static boolean dockerRuns() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    @Test
    void locksAreGrantedByTheContainersRedis() {
        try (LockHandle lock = this.locks.acquire("stock:container")) {
            assertThat(lock.isHeld()).isTrue();
        }
    }
}
