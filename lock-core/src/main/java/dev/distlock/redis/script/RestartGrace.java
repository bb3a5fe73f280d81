package dev.distlock.redis.script;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The restart grace of a service's new grants (the acquire scripts' {@code restartGraceLeft}): a Redis process younger
 * than the grace grants no new lock, since it may have restarted without the data of leases that still run in their
 * holders. Redis decides from its own uptime, so a client that never saw the old process is held back too.
 *
 *
 * <p>The scripts read {@code INFO server} only until the process is older than the grace; then they write a marker key
 * that lives as long as the process's data, so every later grant costs one {@code EXISTS}, but for an exclusive lock's
 * grant on a hash kept from an earlier grant (a lock cycle's), which the grace already let through. On a Redis Cluster
 * the marker must be in the lock's slot: one marker per slot, named with a hash tag of that slot.
 */
public final class RestartGrace {

    /** A refusal answers {@code REFUSED - ms left}: below every holder's remaining lease ({@code -1 - ms}). */
    public static final long REFUSED = -1L - (1L << 40);

    private static final int SLOTS = 16384;

    private final Duration grace;

    private final String prefix;

    private final boolean cluster;

    /** The one marker of a server that is not a Cluster, named once. */
    private final String singleMarker;

    private volatile String @Nullable [] slotTags;

    public RestartGrace(Duration grace, String prefix, boolean cluster) {
        this.grace = grace;
        this.prefix = prefix;
        this.cluster = cluster;
        this.singleMarker = prefix + ":restart-grace";
    }

    /** No grace: every grant goes ahead at once. */
    public static RestartGrace none() {
        return new RestartGrace(Duration.ZERO, "distlock", false);
    }

    public static boolean refused(long reply) {
        return reply <= REFUSED;
    }

    /** How long until a refused grant may go ahead. */
    public static long leftMillis(long reply) {
        return REFUSED - reply;
    }

    /** The grace, which a new grant sends as {@link ScriptArgument#RESTART_GRACE_MILLIS}. */
    Duration grace() {
        return this.grace;
    }

    /** The marker key in the slot of {@code lockName}, any Redis name of the lock (they all carry its hash tag). */
    String marker(String lockName) {
        if (!this.cluster) {
            return this.singleMarker;
        }
        return this.prefix + ":{" + slotTags()[ClusterSlotHashUtil.calculateSlot(lockName)] + "}:restart-grace";
    }

    /** One short hash tag per Cluster slot, found once by counting up (about 170,000 CRC16 sums, a few ms). */
    private String[] slotTags() {
        String[] tags = this.slotTags;
        if (tags == null) {
            synchronized (this) {
                tags = this.slotTags;
                if (tags == null) {
                    tags = new String[SLOTS];
                    int found = 0;
                    for (int i = 0; found < SLOTS; i++) {
                        String tag = Integer.toString(i, 36);
                        int slot = ClusterSlotHashUtil.calculateSlot(tag);
                        if (tags[slot] == null) {
                            tags[slot] = tag;
                            found++;
                        }
                    }
                    this.slotTags = tags;
                }
            }
        }
        return tags;
    }
}
