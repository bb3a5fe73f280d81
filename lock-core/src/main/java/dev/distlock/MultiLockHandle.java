package dev.distlock;

import java.util.List;
import java.util.function.Consumer;

/**
 * The locks of several keys, taken together by {@link LockService#acquireAll}. Release the set, not its members: one
 * {@link #release()} releases every key, from any thread. What the {@link LockHandle} methods mean for a set:
 * <ul>
 * <li>{@link #key()}: the keys in acquisition order, as {@code [a, b]}, for messages and logs;</li>
 * <li>{@link #name()}: the options' name, or else the members' distinct names in order joined by {@code '+'}, as
 * {@code account+stock};</li>
 * <li>{@link #ownerToken()}: the first member's owner token (each member has its own);</li>
 * <li>{@link #fencingToken()}: the highest member token. It strictly increases from one grant of the same key set to
 * the next, as every member's does; a resource guarded per key should check that key's
 * {@code member(key).fencingToken()}, since tokens of different keys are not comparable;</li>
 * <li>{@link #leaseDeadline()}: the earliest member deadline; {@link #isHeld()}: whether every member is held;</li>
 * <li>{@link #onLeaseLost(Consumer)}: called once, when the first member's lease is lost (the set is then lost);</li>
 * <li>{@link #release()} and {@link #releaseAfter}: act on every member, in reverse acquisition order, even when some
 * fail. The first failure is thrown with the others added as suppressed.</li>
 * </ul>
 */
public interface MultiLockHandle extends LockHandle {

    /** The member handles, one per distinct key, in acquisition order. */
    List<LockHandle> members();

    /**
     * The member handle of one key.
     *
     * @throws IllegalArgumentException when the key is not in the set
     */
    LockHandle member(String key);
}
