package dev.distlock.spring;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockHandle;

/**
 * The lock held by the {@link DistributedLock} call running on the current thread, for its fencing token:
 *
 * <pre>{@code
 * @DistributedLock(key = "'stock:' + #sku")
 * public void reserve(String sku) {
 *     stockTable.update(sku, CurrentLock.required().fencingToken());
 * }
 * }</pre>
 *
 * With nested annotated calls it is the innermost one's lock. Visible only on the thread that called the annotated
 * method, and only while it runs; work handed to other threads must be passed the handle.
 */
public final class CurrentLock {

    private static final ThreadLocal<Deque<LockHandle>> held = new ThreadLocal<>();

    private CurrentLock() {
    }

    /** The innermost lock of the running annotated call on this thread, or empty outside such a call. */
    public static Optional<LockHandle> handle() {
        Deque<LockHandle> stack = held.get();
        return (stack != null) ? Optional.ofNullable(stack.peek()) : Optional.empty();
    }

    /**
     * The innermost lock of the running annotated call on this thread.
     *
     * @throws IllegalStateException outside a {@link DistributedLock} call on this thread
     */
    public static LockHandle required() {
        return handle().orElseThrow(() -> new IllegalStateException(
                "No @DistributedLock method is running on this thread (self-invocation through 'this' takes no lock)"));
    }

    /** Every lock of the running annotated calls on this thread, innermost first; empty outside such a call. */
    static List<LockHandle> all() {
        Deque<LockHandle> stack = held.get();
        return (stack != null) ? List.copyOf(stack) : List.of();
    }

    static void push(LockHandle handle) {
        Deque<LockHandle> stack = held.get();
        if (stack == null) {
            stack = new ArrayDeque<>(2);
            held.set(stack);
        }
        stack.push(handle);
    }

    static void pop(LockHandle handle) {
        Deque<LockHandle> stack = held.get();
        if (stack == null) {
            return;
        }
        stack.removeFirstOccurrence(handle);
        if (stack.isEmpty()) {
            held.remove();
        }
    }
}
