package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Redis holds data for this lock that another layout of distlock wrote (see docs/data-layout.md, "Layout version"):
 * a later version of distlock beside this one, further apart than a rolling deploy allows (docs/upgrading.md), or a
 * key of the wrong type written by something else under the lock's name. Nothing was granted or changed; retrying does
 * not help until every instance runs a version that reads that layout. Not "held by another owner", not "Redis
 * unreachable".
 */
public class LockLayoutException extends LockException {

    private final String foundLayout;

    private final int ownLayout;

    public LockLayoutException(String key, String foundLayout, int ownLayout, String message,
            @Nullable Throwable cause) {
        super(key, message, cause);
        this.foundLayout = foundLayout;
        this.ownLayout = ownLayout;
    }

    /** The layout Redis's data names ("2", ...), or "unknown" for a key of another type than this layout's. */
    public String foundLayout() {
        return this.foundLayout;
    }

    /** The layout this service reads and writes. */
    public int ownLayout() {
        return this.ownLayout;
    }
}
