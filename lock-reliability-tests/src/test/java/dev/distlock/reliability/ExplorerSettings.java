package dev.distlock.reliability;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The settings of one explorer run: the seed (which decides the operation mix and the fault schedule), how long the
 * clients work, and which faults the schedule may choose. Timing bounds tolerate a loaded 2-core machine.
 *
 * @param seed the seed of this run
 * @param runTime how long the clients work before the end-of-run checks
 * @param faults the fault kinds the schedule may choose, from {@link #ALL_FAULTS}
 * @param services how many lock services (each with its own proxy, clients and watchdog)
 * @param workersPerService client threads per service
 * @param quorum whether the services are quorum services over three masters (each master behind its own proxy)
 * @param mixed whether the last service runs the previous layout's code (mixed versions, docs/upgrading.md)
 */
record ExplorerSettings(long seed, Duration runTime, Set<String> faults, int services, int workersPerService,
        boolean quorum, boolean mixed) {

    /**
     * Every fault kind: the wire faults of each service's proxy, Redis paused with SIGSTOP, and a lock's lease deleted
     * behind its holder's back right before its release, whose first reply is delayed past the command timeout
     * ({@link #LEASE_DELETE}: attached to an operation, never on the schedule).
     */
    static final List<String> ALL_FAULTS = List.of("reply-delay", "reply-drop", "reset", "stall", "redis-pause",
            "lease-delete");

    /** The fault a worker attaches to a release: the lease deleted, as a failover, eviction or FLUSHALL would. */
    static final String LEASE_DELETE = "lease-delete";

    /** The command timeout of every client. */
    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(400);

    /** The watchdog's lease. */
    static final Duration WATCHDOG_LEASE = Duration.ofMillis(1500);

    /** The fair lock's waiter lease. */
    static final Duration WAITER_LEASE = Duration.ofSeconds(2);

    /** What a loaded machine may add to any bound (GC, two cores shared by several JVMs). */
    static final long MARGIN_MILLIS = 4000;

    /** A free stretch this long with a caller still waiting and no fault active is a lost wake-up. */
    static final long WAKE_LIMIT_MILLIS = 2500;

    /**
     * @param quorum {@code never}, {@code always}, or {@code some}: one seed in three, decided by the seed
     * @param mixed the same for the mixed-version mode (drawn apart from quorum mode)
     */
    static ExplorerSettings of(long seed, Duration runTime, String faults, String quorum, String mixed) {
        boolean quorumRun = mode("explorer.quorum", quorum, new java.util.Random(seed ^ 0x5DEECE66DL));
        boolean mixedRun = mode("explorer.mixed", mixed, new java.util.Random(seed ^ 0x4D49584544L));
        Set<String> kinds = new LinkedHashSet<>();
        for (String kind : faults.split(",")) {
            String trimmed = kind.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            if (trimmed.equals("all")) {
                kinds.addAll(ALL_FAULTS);
            }
            else if (trimmed.equals("none")) {
                kinds.clear();
            }
            else if (!ALL_FAULTS.contains(trimmed)) {
                throw new IllegalArgumentException("explorer.faults: unknown fault '" + trimmed + "'; known: "
                        + ALL_FAULTS + ", all, none");
            }
            else {
                kinds.add(trimmed);
            }
        }
        return new ExplorerSettings(seed, runTime, kinds, 2, 3, quorumRun, mixedRun);
    }

    private static boolean mode(String property, String value, java.util.Random draw) {
        return switch (value) {
            case "never" -> false;
            case "always" -> true;
            case "some" -> draw.nextInt(3) == 0;
            default -> throw new IllegalArgumentException(property + " must be never, always or some, but was '"
                    + value + "'");
        };
    }
}
