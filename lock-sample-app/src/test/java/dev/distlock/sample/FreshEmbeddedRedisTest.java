package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import dev.distlock.LockHandle;
import dev.distlock.LockService;

/**
 * The embedded Redis the sample starts is its own, new and empty, so it is declared fresh: locks are granted at once
 * even with the default restart grace (the build's tests otherwise turn the grace off).
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE, properties = "distlock.safety.restart-grace=30s")
class FreshEmbeddedRedisTest {

    @Autowired
    private LockService locks;

    @Test
    void theSampleGrantsLocksAtOnceAfterStartingItsOwnRedis() {
        try (LockHandle lock = this.locks.tryAcquire("stock:fresh").orElseThrow()) {
            assertThat(lock.isHeld()).isTrue();
        }
    }
}
