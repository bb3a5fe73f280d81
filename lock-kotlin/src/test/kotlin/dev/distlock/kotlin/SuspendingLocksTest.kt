package dev.distlock.kotlin

import dev.distlock.LeaseLostException
import dev.distlock.LockHandle
import dev.distlock.LockMode
import dev.distlock.LockOptions
import dev.distlock.LockTimeoutException
import dev.distlock.test.Await
import dev.distlock.test.RedisNode
import dev.distlock.test.RedisTest
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout

/** The suspending calls of lock-kotlin against a real Redis. */
@RedisTest
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SuspendingLocksTest {

    private val limit = Duration.ofSeconds(30)

    private lateinit var redis: RedisNode

    private lateinit var services: RedisServices

    @BeforeEach
    fun setUp(redis: RedisNode) {
        this.redis = redis
        this.services = RedisServices(redis)
    }

    @AfterEach
    fun tearDown() {
        services.close()
    }

    @Test
    fun manyCoroutinesOfTwoServicesOnTwoThreadsNeverOverlapAndFencingTokensRise() {
        val first = services.service()
        val second = services.service()
        val options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(60))
        val inside = AtomicInteger()
        val overlaps = AtomicInteger()
        val lastToken = AtomicLong()
        val tokensOutOfOrder = AtomicInteger()
        threads(2).use { dispatcher ->
            runBlocking(dispatcher) {
                withTimeout(90_000) {
                    (0 until 200).map { i ->
                        async {
                            (if (i % 2 == 0) first else second).withLock("shared", options) { lock ->
                                if (inside.incrementAndGet() != 1) overlaps.incrementAndGet()
                                if (lastToken.getAndSet(lock.fencingToken()) >= lock.fencingToken()) {
                                    tokensOutOfOrder.incrementAndGet()
                                }
                                yield() // the other coroutines get the threads while this one holds the lock
                                delay(1)
                                inside.decrementAndGet()
                            }
                        }
                    }.awaitAll()
                }
            }
        }
        assertThat(overlaps).hasValue(0)
        assertThat(tokensOutOfOrder).hasValue(0)
        assertThat(lastToken.get()).isPositive()
        assertThat(services.held("shared")).isFalse()
    }

    @Test
    fun waitingCoroutinesParkNoThread() {
        val holder = services.service().acquire("busy", LockOptions.defaults())
        val waiters = services.service()
        val options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(60))
        val executor = Executors.newFixedThreadPool(2) as ThreadPoolExecutor
        val started = AtomicInteger()
        val granted = AtomicInteger()
        executor.asCoroutineDispatcher().use { dispatcher ->
            runBlocking {
                val calls = (0 until 200).map {
                    launch(dispatcher) {
                        started.incrementAndGet()
                        waiters.withLock("busy", options) { granted.incrementAndGet() }
                    }
                }
                Await.until(limit, { started.get() == 200 }, "the 200 coroutines start")
                Await.until(limit, { redis.call("PUBSUB", "NUMSUB", "distlock:{busy}:released").endsWith("1") },
                    "the waiting service subscribes to the lock's release channel")
                Await.until(limit, { executor.activeCount == 0 }, "both threads are free while 200 coroutines wait")
                assertThat(granted).hasValue(0)
                assertThat(withContext(dispatcher) { "ran" }).`as`("the dispatcher still runs other work").isEqualTo("ran")
                holder.release()
                withTimeout(60_000) { calls.forEach { it.join() } }
            }
        }
        executor.shutdown()
        assertThat(granted).hasValue(200)
        assertThat(services.held("busy")).isFalse()
    }

    @Test
    fun cancellingAWaitingCoroutineLeavesNoLockAndNoWaiterForEveryType(): Unit = runBlocking {
        val holderService = services.service()
        // a waiter's place in Redis would lapse only after a minute: the third caller gets in at once only if it went
        val waiters = services.service { it.waiterLease(Duration.ofMinutes(1)) }
        val third = services.service()
        for (mode in LockMode.entries) {
            val key = "cancel-" + mode.name.lowercase()
            val options = LockOptions.defaults().withMode(mode).let { if (mode.isSemaphore) it.withPermits(1) else it }
            val holder = holderService.acquire(key, if (mode == LockMode.READ) options.withMode(LockMode.WRITE) else options)
            val ran = AtomicInteger()
            val waiting = launch(start = CoroutineStart.UNDISPATCHED) {
                waiters.withLock(key, options.withWaitTime(Duration.ofMinutes(2))) { ran.incrementAndGet() }
            }
            Await.until(limit, { redis.call("PUBSUB", "CHANNELS", "distlock:{$key}*").contains(key) },
                "the waiter of $mode subscribes to the lock's release channel")
            // a waiting writer's intent and a fair waiter's place in the queue are kept in Redis
            val place = when (mode) {
                LockMode.WRITE -> "distlock:{$key}:rw:intent"
                LockMode.FAIR -> "distlock:{$key}:fair:queue"
                LockMode.FAIR_SEMAPHORE -> "distlock:{$key}:sem:queue"
                else -> null
            }
            if (place != null) {
                Await.until(limit, { redis.call("EXISTS", place) == "1" }, "the waiter of $mode takes its place")
            }
            waiting.cancelAndJoin()
            if (place != null) {
                Await.until(limit, { redis.call("EXISTS", place) == "0" },
                    "the cancelled waiter of $mode gives up its place while the lock is still held")
            }
            holder.release()
            val other = if (mode == LockMode.WRITE) options.withMode(LockMode.READ) else options
            Await.until(limit, {
                val taken = third.tryAcquire(key, other)
                taken.ifPresent(LockHandle::release)
                taken.isPresent
            }, "another caller takes the $mode lock: the cancelled waiter kept nothing")
            assertThat(ran).`as`("the cancelled block never ran").hasValue(0)
        }
    }

    @Test
    fun cancellingAHoldingCoroutineReleasesTheLockBeforeItEnds(): Unit = runBlocking {
        val locks = services.service()
        val entered = CompletableDeferred<Long>()
        val holding = launch {
            locks.withLock("held") { lock ->
                entered.complete(lock.fencingToken())
                awaitCancellation()
            }
        }
        assertThat(entered.await()).isPositive()
        assertThat(services.held("held")).isTrue()
        holding.cancelAndJoin()
        assertThat(services.held("held")).`as`("released when the cancelled coroutine completed").isFalse()
        assertThat(holding.isCancelled).isTrue()
    }

    @Test
    fun theLockIsInTheCoroutineContextOfTheBlockAndOfCoroutinesItStarts() = runTest {
        val locks = services.service()
        assertThat(currentLock()).isNull()
        val result = locks.withLock("context") { lock ->
            assertThat(currentLock()).isSameAs(lock)
            assertThat(requiredLock().key()).isEqualTo("context")
            val child = async { currentLock() }
            assertThat(child.await()).`as`("a child coroutine").isSameAs(lock)
            locks.withLock("inner") { inner -> assertThat(currentLock()).isSameAs(inner) }
            assertThat(currentLock()).`as`("the outer lock again after the inner block").isSameAs(lock)
            "done with ${lock.fencingToken()}"
        }
        assertThat(result).startsWith("done with ")
        assertThat(currentLock()).isNull()
        val childSawTheLockHeld = AtomicBoolean()
        locks.withLock("children") {
            launch {
                delay(100)
                childSawTheLockHeld.set(services.held("children"))
            }
        }
        assertThat(childSawTheLockHeld).`as`("a coroutine started in the block ends before the release").isTrue()
        assertThat(services.held("children")).isFalse()
        assertThat(failureOf { requiredLock() }).isInstanceOf(IllegalStateException::class.java)
    }

    @Test
    fun tryAcquireAndAWaitThatEndsReportWhetherTheLockIsHeld() = runTest {
        val holderService = services.service()
        val locks = services.service()
        val free = locks.awaitTryAcquire("try")
        assertThat(free).isNotNull()
        free!!.awaitRelease()
        val holder = holderService.acquire("try", LockOptions.defaults())
        assertThat(locks.awaitTryAcquire("try")).`as`("held by another service").isNull()
        assertThat(failureOf { locks.awaitAcquire("try", LockOptions.defaults().withWaitTime(Duration.ofMillis(200))) })
            .isInstanceOf(LockTimeoutException::class.java)
        holder.release()
        val all = locks.async().awaitAcquireAll(listOf("try", "other"))
        assertThat(services.held("try") && services.held("other")).isTrue()
        all.awaitRelease()
        assertThat(services.held("try") || services.held("other")).isFalse()
    }

    @Test
    fun aNestedBlockOnTheSameKeyReEntersOnlyWithAnOwner() = runTest {
        val locks = services.service()
        val owner = Any()
        val withOwner = LockOptions.defaults().withOwner(owner)
        val token = locks.withLock("nested", withOwner) { outer ->
            locks.withLock("nested", withOwner) { inner -> assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken()) }
            assertThat(services.held("nested")).`as`("the outer acquisition still holds it").isTrue()
            val alone = failureOf {
                locks.withLock("nested", LockOptions.defaults().withWaitTime(Duration.ofMillis(100))) { "never" }
            }
            assertThat(alone).`as`("without the owner, a nested block waits for its own lock")
                .isInstanceOf(LockTimeoutException::class.java)
            outer.fencingToken()
        }
        assertThat(token).isPositive()
        assertThat(services.held("nested")).isFalse()
    }

    @Test
    fun aBadKeyFailsAtTheCallAndNothingIsWritten() = runTest {
        val locks = services.service()
        assertThat(failureOf { locks.withLock("bad{key}") { "never" } }).isInstanceOf(IllegalArgumentException::class.java)
        assertThat(redis.call("DBSIZE")).isEqualTo("0")
    }

    @Test
    fun aFailedBlockKeepsItsExceptionAndReleases() = runTest {
        val locks = services.service()
        assertThat(failureOf { locks.withLock("failing") { throw IllegalStateException("work failed") } })
            .hasMessage("work failed")
        assertThat(services.held("failing")).isFalse()
    }

    @Test
    fun aLeaseLostWhileTheBlockRanFailsTheResult() = runTest {
        val locks = services.service()
        val failure = failureOf {
            locks.withLock("lost") {
                redis.call("DEL", "distlock:{lost}:lock") // the lock vanishes from Redis under the holder
                "a result that may have overlapped another holder"
            }
        }
        assertThat(failure).isInstanceOf(LeaseLostException::class.java)
    }

    private fun threads(count: Int) = Executors.newFixedThreadPool(count).asCoroutineDispatcher()

    private suspend fun failureOf(block: suspend () -> Any?): Throwable? =
        try {
            block()
            null
        } catch (failure: Throwable) {
            failure
        }
}
