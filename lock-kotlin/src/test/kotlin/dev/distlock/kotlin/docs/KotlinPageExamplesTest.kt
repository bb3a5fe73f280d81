package dev.distlock.kotlin.docs

import dev.distlock.kotlin.RedisServices
import dev.distlock.test.RedisNode
import dev.distlock.test.RedisTest
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/** The examples of docs/kotlin.md do what the page says, on a real Redis. */
@RedisTest
class KotlinPageExamplesTest {

    @Test
    fun theStockExampleReservesUnderTheLockWithRisingFencingTokens(redis: RedisNode) = runTest {
        RedisServices(redis).use { services ->
            val store = mutableMapOf("42" to 10)
            val stock = StockService(services.service(), Stock(store))
            val reservations = (1..5).map { async { stock.reserve("42", 1) } }.awaitAll()
            assertThat(store["42"]).isEqualTo(5)
            assertThat(reservations.map { it.fencingToken }).doesNotHaveDuplicates()
            assertThat(stock.restockIfFree("42", 3)).isTrue()
            assertThat(store["42"]).isEqualTo(8)
            assertThat(services.held("stock:42")).isFalse()
        }
    }
}
