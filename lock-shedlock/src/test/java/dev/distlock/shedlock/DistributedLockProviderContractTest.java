package dev.distlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * ShedLock's published provider contract, unchanged, on a real Redis. The build runs it twice: with the ShedLock core
 * this module is built against (7.x) and with the newest 6.x (the {@code shedlock-6} surefire execution).
 */
@RedisTest
class DistributedLockProviderContractTest extends AbstractExtensibleLockProviderIntegrationTest {

    private RedisServices services;

    private DistributedLockProvider provider;

    /** Another node's service, which looks at the locks from outside by trying to take them. */
    private LockService observer;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.services = new RedisServices(redis);
        this.provider = new DistributedLockProvider(this.services.service());
        this.observer = this.services.service();
    }

    @AfterEach
    void tearDown() throws Exception {
        this.services.close();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return this.provider;
    }

    @Override
    protected void assertUnlocked(String lockName) {
        Optional<LockHandle> probe = this.observer.tryAcquire(DistributedLockProvider.DEFAULT_KEY_PREFIX + lockName);
        assertThat(probe).describedAs("another node can take lock " + lockName).isPresent();
        probe.get().release();
    }

    @Override
    protected void assertLocked(String lockName) {
        Optional<LockHandle> probe = this.observer.tryAcquire(DistributedLockProvider.DEFAULT_KEY_PREFIX + lockName);
        probe.ifPresent(LockHandle::release);
        assertThat(probe).describedAs("another node is refused lock " + lockName).isEmpty();
    }

    @Test
    void runsOnTheShedLockVersionThisBuildExecutionMeans() {
        String expected = System.getProperty("expectedShedLockVersion");
        assertThat(expected).describedAs("system property expectedShedLockVersion, set by the build").isNotNull();
        String jar = LockProvider.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertThat(jar).endsWith("shedlock-core-" + expected + ".jar");
    }
}
