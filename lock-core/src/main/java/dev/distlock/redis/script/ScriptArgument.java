package dev.distlock.redis.script;

import org.jspecify.annotations.Nullable;

/**
 * The arguments of the lock scripts, by name. Each script's header declares its ARGV positions with these names
 * ({@code -- ARGV[3] LEASE_MILLIS ...}), and its {@link ScriptLayout} in Java lists them in the same order;
 * {@link ScriptLayout#load} refuses a script whose header says otherwise. Arguments shared by several scripts keep one
 * position within a family: every grant script takes {@code OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY,
 * RESTART_GRACE_MILLIS} as ARGV[1] to [6], every release script {@code OWNER_TOKEN, HOLD_ID, FENCING_TOKEN, WATCHDOG,
 * KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND} as ARGV[1] to [8]. Those positions are the
 * script's as read; a call is usually sent as a copy of it with its few-valued arguments written into the text
 * ({@link #isWrittenIntoScript(boolean)}, {@link ScriptCopies}), which takes the others in the same order.
 */
public enum ScriptArgument {

    /** The owner token the lock is held under. */
    OWNER_TOKEN(false),

    /** One acquisition's id within its hold, so that a retried call never counts twice. */
    HOLD_ID(false),

    /**
     * The lease, in ms. Written into a copy only for a call the watchdog renews ({@link #WATCHDOG} '1'), whose lease
     * is the service's watchdog lease; a fixed lease is the caller's, any value, and is sent.
     */
    LEASE_MILLIS(true, true),

    /** '1' when the watchdog renews the hold, '0' for a fixed lease. */
    WATCHDOG(true),

    /** '1' for a re-entry: granted only while the owner still holds the lock. */
    REENTRY(true),

    /** The restart grace of a new grant, in ms; 0 for none. */
    RESTART_GRACE_MILLIS(true),

    /** '1' when the caller waits if refused (acquire.lua and sem-acquire.lua then mark 'waiting'). */
    WAITING(true),

    /** How long a waiter's place (a fair queue place, a write intent) lasts unless refreshed, in ms; 0 for none. */
    PLACE_LEASE_MILLIS(true),

    /** A semaphore's limit, as this call names it: the most permits its holders may have at once. */
    PERMIT_LIMIT(false),

    /** The permits a semaphore acquisition asks for. */
    PERMITS(false),

    /** '1' for a fair semaphore: granted only to the first waiter, or when nobody waits. */
    FAIR(true),

    /** How long the last fencing token, or a released hold's mark, is kept once the lock is free, in ms. */
    TOKEN_RETENTION_MILLIS(true),

    /** The fencing token of the owner's grant, which recognises a retried release after others took the lock. */
    FENCING_TOKEN(false),

    /**
     * 0 to free the lock now; otherwise keep it held, unrenewed, for this many more ms. Written into a copy only as 0:
     * a delayed release is sent as the script itself.
     */
    KEEP_HELD_MILLIS("0"),

    /** The release channel. */
    CHANNEL(false),

    /** The publish command: PUBLISH, or SPUBLISH for sharded pub/sub on a Redis Cluster. */
    PUBLISH_COMMAND(true),

    /**
     * The release message: the releasing service's id. Sent, not written: a new id per service (and per process
     * start) would leave a new copy in Redis's script cache each time, which Redis 7.0 never evicts.
     */
    MESSAGE(false),

    /** '1' to publish a release only when a waiting caller was refused since the last one. */
    PUBLISH_ONLY_TO_WAITERS(true),

    /** The owner token a hand-off grants the lock to. */
    NEW_OWNER_TOKEN(false),

    /** The new owner's hold id. */
    NEW_HOLD_ID(false),

    /** '1' when the process's run of hand-offs reached its bound: hand off only if nobody else waits. */
    LAST_OF_RUN(true),

    /** A fencing token to raise a record to (quorum mode). */
    RAISE_TO(false);

    private final boolean writtenIntoScript;

    private final @Nullable String onlyWrittenAs;

    private final boolean onlyWhenWatched;

    ScriptArgument(boolean writtenIntoScript) {
        this(writtenIntoScript, false);
    }

    /** An argument written into a copy, if {@code onlyWhenWatched}, only for a call whose WATCHDOG is '1'. */
    ScriptArgument(boolean writtenIntoScript, boolean onlyWhenWatched) {
        this.writtenIntoScript = writtenIntoScript;
        this.onlyWrittenAs = null;
        this.onlyWhenWatched = onlyWhenWatched;
    }

    /** An argument written into a copy only when it has this value (its common one). */
    ScriptArgument(String onlyWrittenAs) {
        this.writtenIntoScript = true;
        this.onlyWrittenAs = onlyWrittenAs;
        this.onlyWhenWatched = false;
    }

    /**
     * Whether the argument takes one of a few values in a service (a flag, or a setting of the service, such as the
     * restart grace), so that a call is sent as a copy of its script with the value written into the text rather than
     * as an argument (see {@link ScriptCopies}). One written only for a watched call
     * ({@link #onlyWrittenWhenWatched()}) is written only into a script that takes {@link #WATCHDOG}.
     */
    boolean isWrittenIntoScript(boolean scriptTakesWatchdog) {
        return this.writtenIntoScript && (scriptTakesWatchdog || !this.onlyWhenWatched);
    }

    /** The one value the argument is written into a copy as, a call with any other being sent as the script; or null. */
    @Nullable String onlyWrittenAs() {
        return this.onlyWrittenAs;
    }

    /**
     * Whether the argument is written into a copy only for a call the watchdog renews ({@link #WATCHDOG} '1'), and
     * sent by any other call (its value is then the caller's, not the service's).
     */
    boolean onlyWrittenWhenWatched() {
        return this.onlyWhenWatched;
    }
}
