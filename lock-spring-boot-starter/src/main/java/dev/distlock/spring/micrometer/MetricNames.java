package dev.distlock.spring.micrometer;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.LockOptions;

/**
 * The {@code name} tag values of lock meters and observations, bounded so that no caller who controls part of a key
 * controls the number of meters. A tag value is a name the code declared ({@code @DistributedLock}'s method or
 * {@code name}, {@link LockOptions#withName(String)}); a name derived from a key's first part is used only when it is
 * one of the configured {@code keyNames}, and is {@value #UNNAMED} otherwise. At most {@code maxNames} distinct values
 * are used; any name seen after that is counted as {@value #OTHER}. Thread-safe.
 */
public final class MetricNames {

    /** The default most distinct name tag values. */
    public static final int DEFAULT_MAX_NAMES = 100;

    /** The tag value of every name beyond the cap. */
    public static final String OTHER = "other";

    /** The tag value of a lock whose name was neither declared nor one of the configured key names. */
    public static final String UNNAMED = "unnamed";

    private final int maxNames;

    private final Set<String> keyNames;

    private final Set<String> used = ConcurrentHashMap.newKeySet();

    /** Declared names only, at most {@value #DEFAULT_MAX_NAMES}. */
    public MetricNames() {
        this(DEFAULT_MAX_NAMES, Set.of());
    }

    /**
     * @param maxNames the most distinct tag values; at least 1
     * @param keyNames the names derived from keys (their first part, such as {@code orders} of {@code orders:42})
     * that may be tag values
     */
    public MetricNames(int maxNames, Collection<String> keyNames) {
        if (maxNames < 1) {
            throw new IllegalArgumentException("maxNames must be at least 1, but was " + maxNames);
        }
        this.maxNames = maxNames;
        this.keyNames = Set.copyOf(keyNames);
    }

    /** The tag value of a lock of {@code key} named {@code name} (as {@link dev.distlock.LockHandle#name()} says). */
    public String of(String key, String name) {
        boolean derived = name.equals(LockOptions.defaults().nameFor(key));
        return (derived && !this.keyNames.contains(name)) ? UNNAMED : capped(name);
    }

    /** The tag value of a name the code declared. */
    public String declared(String name) {
        return capped(name);
    }

    private String capped(String name) {
        if (name.equals(UNNAMED) || name.equals(OTHER) || this.used.contains(name)) {
            return name;
        }
        synchronized (this.used) {
            if (this.used.size() >= this.maxNames && !this.used.contains(name)) {
                return OTHER;
            }
            this.used.add(name);
            return name;
        }
    }
}
