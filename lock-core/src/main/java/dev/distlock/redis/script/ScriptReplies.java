package dev.distlock.redis.script;

/** What the lock scripts answer, by name (the Lua files return the same numbers). */
public final class ScriptReplies {

    /** A release ended the owner's last hold and freed the lock. */
    public static final long FREED = 1;

    /** A release ended one hold; the owner still holds the lock. */
    static final long STILL_HELD = 2;

    /** The hold was released before (a retried call). */
    public static final long ALREADY_RELEASED = 0;

    /** The lock is held by another owner. */
    public static final long HELD_BY_ANOTHER = -1;

    /** Nobody holds the lock under this owner's grant. */
    public static final long NOT_HELD = -2;

    /** This owner's last hold ended but the lock stays held by others (a reader among readers): nobody to wake. */
    static final long FREED_QUIETLY = 3;

    /** A hand-off found the owner with other holds: nothing was handed off. */
    public static final long OTHER_HOLDS_REMAIN = -3;

    /** A hand-off at the end of a run of hand-offs found others waiting: nothing was handed off. */
    public static final long OTHERS_WAIT = -4;

    /** A renewal script's answer per lock: the lease was extended. */
    public static final int RENEWED = 1;

    /** The lock is deleted or held by another owner: the lease is lost. */
    public static final int NOT_HELD_BY_OWNER = 0;

    /** Still held by the owner, but none of its open holds asks for renewal: left as it is. */
    static final int NOT_RENEWED = 2;

    private ScriptReplies() {
    }
}
