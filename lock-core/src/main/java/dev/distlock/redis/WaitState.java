package dev.distlock.redis;

/**
 * The state of one waiting call, the one type for both what its place in the local queue is ({@link QueueTurn}, which
 * stores it and changes it only by compare-and-set, so that a hand-off and the call's own attempt never both win) and
 * what {@link WaitingCall#next()} tells its driver to do. Transitions of the stored state:
 * <pre>
 * WAITING    -> ATTEMPTING  the call asks Redis itself ({@link QueueTurn#startAttempt()})
 * ATTEMPTING -> WAITING     refused ({@link QueueTurn#endAttempt()})
 * WAITING    -> CLAIMED     a releasing holder hands the lock to it ({@link QueueTurn#claim()})
 * CLAIMED    -> HANDED      the hand-off was granted ({@link QueueTurn#handed})
 * CLAIMED    -> WAITING     it was not ({@link QueueTurn#notHanded})
 * HANDED     -> GONE        the call took the lock ({@link QueueTurn#takeHandedOff()})
 * WAITING, ATTEMPTING -> GONE  the call gave up or was granted by its own attempt ({@link QueueTurn#giveUpNow()})
 * </pre>
 * {@link #BEHIND} is only told to the driver, never stored: a waiting call behind others.
 */
enum WaitState {

    /** Waits for a release (as a step: at most {@link WaitingCall#pauseNanos()}); the stored state at rest. */
    WAITING,
    /** Waits behind earlier callers of the service to be woken, at most {@link WaitingCall#pauseNanos()}. */
    BEHIND,
    /** Asks Redis (as a step: now, between {@link WaitingCall#startAttempt()} and {@link WaitingCall#attempted}). */
    ATTEMPTING,
    /** A hand-off to this call is under way: it waits for the outcome, whatever the deadline. */
    CLAIMED,
    /** The lock was handed to this call ({@link WaitingCall#handedOff()}). */
    HANDED,
    /** The wait is over: the call took its handed lock or gave up (as a step: the wait ended without the lock). */
    GONE
}
