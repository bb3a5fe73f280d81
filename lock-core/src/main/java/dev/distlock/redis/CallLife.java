package dev.distlock.redis;

/**
 * Where a non-blocking call is in its life, as one value: open until its future completes (by the call or from
 * outside), then granted or not, then ended once the call ended its wait. Each value says what the call's next step
 * still has to do. The wait itself, while the call is open, has its own state ({@link WaitState}).
 */
enum CallLife {

    /** Its future is not completed: the call attempts or waits. */
    OPEN,
    /** Completed with a handle: the wait is still to be ended (the waiter told, the local queue left). */
    GRANTED,
    /** Completed without a handle (refused, failed, closed, or withdrawn): the wait is still to be given up. */
    NOT_GRANTED,
    /** Granted and its wait ended: nothing is left to do. */
    GRANTED_ENDED,
    /** Given up: a hand-off under way at the end is still released when it lands. */
    NOT_GRANTED_ENDED
}
