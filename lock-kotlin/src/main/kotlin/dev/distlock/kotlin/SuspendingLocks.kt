@file:JvmName("SuspendingLocks")

package dev.distlock.kotlin

import dev.distlock.AsyncLockService
import dev.distlock.LeaseLostException
import dev.distlock.LockHandle
import dev.distlock.LockOptions
import dev.distlock.LockService
import dev.distlock.LockTimeoutException
import dev.distlock.LockUnavailableException
import dev.distlock.MultiLockHandle
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext

// Suspending calls on LockService and AsyncLockService. They are named await... because a member of the same name
// (the blocking acquire, the future-returning acquire) would always win over an extension.

/**
 * Acquires the lock as [LockService.acquire] does, suspending instead of blocking: no thread waits, the caller is
 * resumed when the holder's release arrives or the wait time ends. Cancelling the coroutine while it waits withdraws
 * the acquisition (nothing is left held or queued in Redis); a grant that arrives together with the cancellation is
 * released at once. Each call is its own owner unless [LockOptions.withOwner] names one, so a second acquisition of a
 * held key waits like anybody else's.
 *
 * @return the handle; release it with [awaitRelease] (or use [withLock], which releases on every path)
 * @throws LockTimeoutException when the lock is still held by another owner at the end of the wait
 * @throws LockUnavailableException when Redis cannot be reached or does not answer in time
 * @throws IllegalArgumentException for a bad key or option, before anything is sent
 * @throws UnsupportedOperationException when the service has no non-blocking side
 */
public suspend fun LockService.awaitAcquire(key: String, options: LockOptions = LockOptions.defaults()): LockHandle =
    async().awaitAcquire(key, options)

/** [LockService.awaitAcquire] on the non-blocking side itself. */
public suspend fun AsyncLockService.awaitAcquire(key: String, options: LockOptions = LockOptions.defaults()): LockHandle =
    awaitGrant(acquire(key, options)) { it }

/**
 * Makes one attempt to acquire the lock, ignoring the options' wait time, suspending until Redis answers.
 *
 * @return the handle, or null when another owner holds the lock
 * @throws LockUnavailableException when Redis cannot be reached or does not answer in time
 */
public suspend fun LockService.awaitTryAcquire(key: String, options: LockOptions = LockOptions.defaults()): LockHandle? =
    async().awaitTryAcquire(key, options)

/** [LockService.awaitTryAcquire] on the non-blocking side itself. */
public suspend fun AsyncLockService.awaitTryAcquire(
    key: String,
    options: LockOptions = LockOptions.defaults(),
): LockHandle? = awaitGrant(tryAcquire(key, options)) { it.orElse(null) }

/**
 * Acquires several keys as one, all or none, as [LockService.acquireAll] does, suspending instead of blocking; keys
 * taken before a failure or a cancellation are released.
 *
 * @return one handle for the whole set
 */
public suspend fun LockService.awaitAcquireAll(
    keys: Collection<String>,
    options: LockOptions = LockOptions.defaults(),
): MultiLockHandle = async().awaitAcquireAll(keys, options)

/** [LockService.awaitAcquireAll] on the non-blocking side itself. */
public suspend fun AsyncLockService.awaitAcquireAll(
    keys: Collection<String>,
    options: LockOptions = LockOptions.defaults(),
): MultiLockHandle = awaitGrant(acquireAll(keys, options)) { it }

/**
 * Acquires the lock (suspending, as [awaitAcquire]), runs [block] while holding it, and releases it when the block
 * ends: returns, throws, or is cancelled. The block is a [CoroutineScope]: coroutines it starts finish before the lock
 * is released. Inside, the handle is the block's argument and [currentLock] in the coroutine context, also for the
 * coroutines it starts.
 *
 * Failures, as for [LockService.executeLocked]: if the block succeeds but the lease was lost meanwhile, the release's
 * [LeaseLostException] is thrown and the result discarded; if the block throws (a cancellation included), that
 * exception propagates with any release failure added as suppressed. The release is awaited even when the coroutine
 * is cancelled, so the lock is free once this function has returned or thrown.
 *
 * ```
 * lockService.withLock("stock:$sku", LockOptions.defaults().withWaitTime(Duration.ofSeconds(2))) { lock ->
 *     stock.decrement(sku, quantity, lock.fencingToken())
 * }
 * ```
 */
public suspend fun <T> LockService.withLock(
    key: String,
    options: LockOptions = LockOptions.defaults(),
    block: suspend CoroutineScope.(LockHandle) -> T,
): T = async().withLock(key, options, block)

/** [LockService.withLock] on the non-blocking side itself. */
public suspend fun <T> AsyncLockService.withLock(
    key: String,
    options: LockOptions = LockOptions.defaults(),
    block: suspend CoroutineScope.(LockHandle) -> T,
): T = holding(awaitAcquire(key, options), block)

/** [LockService.withLock] over a key set taken by [awaitAcquireAll]; the block receives the [MultiLockHandle]. */
public suspend fun <T> LockService.withLockAll(
    keys: Collection<String>,
    options: LockOptions = LockOptions.defaults(),
    block: suspend CoroutineScope.(MultiLockHandle) -> T,
): T = async().withLockAll(keys, options, block)

/** [LockService.withLockAll] on the non-blocking side itself. */
public suspend fun <T> AsyncLockService.withLockAll(
    keys: Collection<String>,
    options: LockOptions = LockOptions.defaults(),
    block: suspend CoroutineScope.(MultiLockHandle) -> T,
): T = holding(awaitAcquireAll(keys, options), block)

/**
 * Releases the acquisition as [LockHandle.release] does, suspending until Redis answered instead of blocking. Not
 * cancellable: once called, the release is carried through.
 *
 * @throws LeaseLostException when the lease had already run out, so the work may have overlapped another holder
 * @throws LockUnavailableException when Redis could not be reached
 */
public suspend fun LockHandle.awaitRelease() {
    withContext(NonCancellable) {
        awaitGrant(releaseAsync()) { }
    }
}

private suspend fun <L : LockHandle, T> holding(lock: L, block: suspend CoroutineScope.(L) -> T): T {
    val result = try {
        withContext(CoroutineLock(lock)) { block(lock) }
    } catch (failure: Throwable) {
        try {
            lock.awaitRelease()
        } catch (releaseFailure: Throwable) {
            failure.addSuppressed(releaseFailure)
        }
        throw failure
    }
    lock.awaitRelease()
    return result
}

/**
 * Suspends until the future completes; cancelling the coroutine cancels the future (withdrawing a pending
 * acquisition), and a handle that completes it while the coroutine is being cancelled is released.
 */
private suspend fun <F, T> awaitGrant(future: CompletableFuture<F>, unwrap: (F) -> T): T =
    suspendCancellableCoroutine { continuation ->
        future.whenComplete { value, failure ->
            if (failure != null) {
                continuation.resumeWithException(
                    if (failure is CompletionException && failure.cause != null) failure.cause!! else failure)
            } else {
                val result = unwrap(value)
                if (result is LockHandle) {
                    continuation.resume(result) { _, granted, _ -> (granted as LockHandle).releaseAsync() }
                } else {
                    continuation.resume(result)
                }
            }
        }
        continuation.invokeOnCancellation { future.cancel(false) }
    }
