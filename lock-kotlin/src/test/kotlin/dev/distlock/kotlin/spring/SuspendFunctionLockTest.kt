package dev.distlock.kotlin.spring

import dev.distlock.LockService
import dev.distlock.LockTimeoutException
import dev.distlock.kotlin.currentLock
import dev.distlock.kotlin.requiredLock
import dev.distlock.spring.DistributedLock
import dev.distlock.spring.OnNotAcquired
import dev.distlock.spring.autoconfigure.DistributedLockAspectAutoConfiguration
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration
import dev.distlock.test.Await
import dev.distlock.test.RedisNode
import dev.distlock.test.RedisTest
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration
import org.springframework.boot.test.context.FilteredClassLoader
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.util.ClassUtils

/**
 * `@DistributedLock` on a Kotlin suspend function, with lock-kotlin on the class path: locked from the call until the
 * function completes, the lock in its coroutine context, the not-acquired outcomes as for other methods; without
 * lock-kotlin, refused at startup.
 */
@RedisTest
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SuspendFunctionLockTest {

    private val limit = Duration.ofSeconds(30)

    private val probe = Probe()

    @BeforeEach
    fun newProbe() {
        currentProbe = probe
    }

    @Test
    fun aSuspendFunctionHoldsItsLockFromTheCallUntilItCompletes(redis: RedisNode) {
        runner(redis).withBean(Inventory::class.java).run { context ->
            val inventory = context.getBean(Inventory::class.java)
            runBlocking(Dispatchers.Default) {
                val first = async { inventory.reserve("42") }
                val token = probe.entered.await()
                assertThat(redis.lockField("distlock:{stock:42}:lock", "owner")).isNotNull()
                // suspended, not returned: the lock stays held, and a second call is skipped with null
                assertThat(inventory.reserve("42")).isNull()
                assertThat(probe.calls).hasValue(1)
                probe.finish.complete(Unit)
                assertThat(withTimeout(10_000) { first.await() }).isEqualTo("reserved 42 under stock:42 ($token)")
                assertThat(redis.lockField("distlock:{stock:42}:lock", "owner")).isNull()
                assertThat(currentLock()).`as`("the caller's own context").isNull()
            }
        }
    }

    @Test
    fun manyCallersOnTwoThreadsNeverOverlapAndParkNoThreadWhileWaiting(redis: RedisNode) {
        runner(redis).withBean(Inventory::class.java).run { context ->
            val inventory = context.getBean(Inventory::class.java)
            val holder = context.getBean(LockService::class.java).acquire("counter")
            val executor = Executors.newFixedThreadPool(2) as ThreadPoolExecutor
            executor.asCoroutineDispatcher().use { dispatcher ->
                runBlocking {
                    val calls = (0 until 100).map {
                        async(dispatcher) {
                            probe.started.incrementAndGet()
                            inventory.countLocked()
                        }
                    }
                    Await.until(limit, { probe.started.get() == 100 }, "every call started")
                    Await.until(limit, { executor.activeCount == 0 }, "both threads are free while 100 calls wait")
                    assertThat(probe.counted).hasValue(0)
                    holder.release()
                    withTimeout(60_000) { calls.awaitAll() }
                }
            }
            executor.shutdown()
            assertThat(probe.counted).hasValue(100)
            assertThat(probe.overlaps).hasValue(0)
            assertThat(redis.lockField("distlock:{counter}:lock", "owner")).isNull()
        }
    }

    @Test
    fun aSuspendFunctionReturningUnitIsLockedAndSkipped(redis: RedisNode) {
        runner(redis).withBean(Inventory::class.java).run { context ->
            val inventory = context.getBean(Inventory::class.java)
            val holder = context.getBean(LockService::class.java).acquire("audit")
            runBlocking { inventory.audit() }
            assertThat(probe.audits).`as`("skipped while held").hasValue(0)
            holder.release()
            runBlocking { inventory.audit() }
            assertThat(probe.audits).hasValue(1)
        }
    }

    @Test
    fun aWaitThatEndsThrowsLockTimeoutException(redis: RedisNode) {
        runner(redis).withBean(Inventory::class.java).run { context ->
            val inventory = context.getBean(Inventory::class.java)
            val holder = context.getBean(LockService::class.java).acquire("order:7")
            val failure = runBlocking {
                try {
                    inventory.confirm("7")
                    null
                } catch (ex: LockTimeoutException) {
                    ex
                }
            }
            holder.release()
            assertThat(failure).isNotNull()
            assertThat(probe.confirmations).`as`("the function never ran").hasValue(0)
            assertThat(runBlocking { inventory.confirm("7") }).isEqualTo("confirmed 7")
        }
    }

    @Test
    fun cancellingTheCallerWhileTheFunctionRunsReleasesTheLock(redis: RedisNode) {
        runner(redis).withBean(Inventory::class.java).run { context ->
            val inventory = context.getBean(Inventory::class.java)
            runBlocking(Dispatchers.Default) {
                val call = launch { inventory.hang("9") }
                Await.until(limit, { redis.lockField("distlock:{hang:9}:lock", "owner") != null }, "locked")
                call.cancelAndJoin()
                Await.until(limit, { redis.lockField("distlock:{hang:9}:lock", "owner") == null },
                    "the cancelled call's lock is released")
            }
        }
    }

    @Test
    fun cancellingAWaitingCallerWithdrawsItsAcquisition(redis: RedisNode) {
        runner(redis).withBean(Inventory::class.java).run { context ->
            val inventory = context.getBean(Inventory::class.java)
            val locks = context.getBean(LockService::class.java)
            val holder = locks.acquire("order:8")
            runBlocking(Dispatchers.Default) {
                val call = launch { inventory.confirmPatiently("8") }
                Await.until(limit, { redis.call("PUBSUB", "NUMSUB", "distlock:{order:8}:released").endsWith("1") },
                    "the call waits for the lock")
                call.cancelAndJoin()
            }
            holder.release()
            Await.until(limit, {
                val next = locks.tryAcquire("order:8")
                next.ifPresent { it.release() }
                next.isPresent
            }, "nobody took the lock for the cancelled call")
            assertThat(probe.confirmations).`as`("the cancelled call's function never ran").hasValue(0)
        }
    }

    @Test
    fun withoutLockKotlinASuspendFunctionFailsStartupSayingToAddIt(redis: RedisNode) {
        runner(redis).withClassLoader(FilteredClassLoader(SuspendFunctionLockContext::class.java))
            .withBean(Inventory::class.java)
            .run { context ->
                assertThat(context.startupFailure).rootCause()
                    .hasMessageContaining("Invalid @DistributedLock on SuspendFunctionLockTest.Inventory.")
                    .hasMessageContaining("it is a Kotlin suspend function, which @DistributedLock locks until it "
                        + "completes only with dev.distlock:lock-kotlin on the class path; add it")
            }
    }

    @Test
    fun skipOnANonNullableResultFailsStartup(redis: RedisNode) {
        runner(redis).withBean(SkipsToNonNull::class.java).run { context ->
            assertThat(context.startupFailure).rootCause()
                .hasMessageContaining("Invalid @DistributedLock on SuspendFunctionLockTest.SkipsToNonNull.count(Continuation): onNotAcquired is "
                    + "SKIP, which returns null, but the suspend function's return type is not nullable")
        }
    }

    @Test
    fun aSuspendFunctionReturningAFlowFailsStartup(redis: RedisNode) {
        runner(redis).withBean(ReturnsFlow::class.java).run { context ->
            assertThat(context.startupFailure).rootCause()
                .hasMessageContaining("it is a suspend function that returns a Flow")
        }
    }

    @Test
    fun aPlainFunctionReturningAFlowFailsStartup(redis: RedisNode) {
        // the flow runs when it is collected, after the method returned: its lock would be released before
        runner(redis).withBean(ReturnsPlainFlow::class.java).run { context ->
            assertThat(context.startupFailure).rootCause()
                .hasMessageContaining("the method returns Flow")
        }
    }

    private fun runner(redis: RedisNode): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
            PropertyPlaceholderAutoConfiguration::class.java, dataRedisAutoConfiguration(),
            DistributedLockAutoConfiguration::class.java, DistributedLockAspectAutoConfiguration::class.java))
        .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port())

    /** Spring Boot's Redis auto-configuration: Boot 4's, or Boot 3.5's where this test runs on 3.5 (lock-kotlin-boot35). */
    private fun dataRedisAutoConfiguration(): Class<*> = listOf(
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
    ).first { ClassUtils.isPresent(it, null) }.let { ClassUtils.forName(it, null) }

    /** What the bean's functions saw, kept outside the bean: a class proxy does not share the bean's fields. */
    class Probe {

        val entered = CompletableDeferred<Long>()

        val finish = CompletableDeferred<Unit>()

        val calls = AtomicInteger()

        val audits = AtomicInteger()

        val confirmations = AtomicInteger()

        val started = AtomicInteger()

        val inside = AtomicInteger()

        val overlaps = AtomicInteger()

        val counted = AtomicInteger()
    }

    open class Inventory {

        private val probe = currentProbe

        @DistributedLock(key = "'stock:' + #sku", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        open suspend fun reserve(sku: String): String? {
            probe.calls.incrementAndGet()
            val lock = requiredLock()
            probe.entered.complete(lock.fencingToken())
            probe.finish.await() // suspends on another thread's schedule: the lock must outlive the first suspension
            delay(10)
            return "reserved $sku under ${requiredLock().key()} (${lock.fencingToken()})"
        }

        @DistributedLock(key = "'audit'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        open suspend fun audit() {
            delay(1)
            probe.audits.incrementAndGet()
        }

        @DistributedLock(key = "'order:' + #id", waitTime = "200ms")
        open suspend fun confirm(id: String): String {
            probe.confirmations.incrementAndGet()
            return "confirmed $id"
        }

        @DistributedLock(key = "'order:' + #id", waitTime = "60s")
        open suspend fun confirmPatiently(id: String): String {
            probe.confirmations.incrementAndGet()
            return "confirmed $id"
        }

        @DistributedLock(key = "'counter'", waitTime = "60s")
        open suspend fun countLocked(): Int {
            if (probe.inside.incrementAndGet() != 1) probe.overlaps.incrementAndGet()
            delay(1)
            probe.inside.decrementAndGet()
            return probe.counted.incrementAndGet()
        }

        @DistributedLock(key = "'hang:' + #id")
        open suspend fun hang(id: String): String = awaitCancellation()
    }

    open class SkipsToNonNull {

        @DistributedLock(key = "'count'", onNotAcquired = OnNotAcquired.SKIP)
        open suspend fun count(): Int = 1
    }

    open class ReturnsFlow {

        @DistributedLock(key = "'flow'")
        open suspend fun values(): Flow<String> = flowOf("a")
    }

    open class ReturnsPlainFlow {

        @DistributedLock(key = "'flow'")
        open fun values(): Flow<String> = flowOf("a")
    }

    private companion object {

        @Volatile
        lateinit var currentProbe: Probe
    }
}
