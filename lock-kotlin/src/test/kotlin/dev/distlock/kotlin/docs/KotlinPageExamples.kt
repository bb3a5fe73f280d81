package dev.distlock.kotlin.docs

// The examples of docs/kotlin.md, compiled with the tests (and the first run by KotlinPageExamplesTest): keep both in
// step.

import dev.distlock.LockOptions
import dev.distlock.LockService
import dev.distlock.kotlin.awaitRelease
import dev.distlock.kotlin.awaitTryAcquire
import dev.distlock.kotlin.requiredLock
import dev.distlock.kotlin.withLock
import dev.distlock.spring.DistributedLock
import dev.distlock.spring.OnNotAcquired
import java.time.Duration

class StockService(private val lockService: LockService, private val stock: Stock) {

    suspend fun reserve(sku: String, quantity: Int): Reservation =
        lockService.withLock("stock:$sku", LockOptions.defaults().withWaitTime(Duration.ofSeconds(2))) {
            stock.decrement(sku, quantity)
        }

    suspend fun restockIfFree(sku: String, quantity: Int): Boolean {
        val lock = lockService.awaitTryAcquire("stock:$sku") ?: return false // held by another owner
        try {
            stock.add(sku, quantity, lock.fencingToken())
        } finally {
            lock.awaitRelease()
        }
        return true
    }
}

class Stock(private val store: MutableMap<String, Int>) {

    /** Deeper in the call: the fencing token of the enclosing withLock, from the coroutine context. */
    suspend fun decrement(sku: String, quantity: Int): Reservation {
        val fencingToken = requiredLock().fencingToken()
        store[sku] = (store[sku] ?: 0) - quantity
        return Reservation(sku, quantity, fencingToken)
    }

    fun add(sku: String, quantity: Int, fencingToken: Long) {
        check(fencingToken > 0)
        store[sku] = (store[sku] ?: 0) + quantity
    }
}

data class Reservation(val sku: String, val quantity: Int, val fencingToken: Long)

// With the starter: a Spring bean (open through the kotlin-spring compiler plugin in an application)
open class OrderService(private val orders: Orders) {

    @DistributedLock(key = "'order:' + #id", waitTime = "2s")
    open suspend fun confirm(id: String): String = orders.confirm(id, requiredLock().fencingToken())

    @DistributedLock(key = "'nightly-report'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
    open suspend fun nightlyReport(): String? = orders.report() // null when another instance runs it
}

interface Orders {

    suspend fun confirm(id: String, fencingToken: Long): String

    suspend fun report(): String
}
