package dev.distlock.redis.lease;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.script.ScriptReplies;

/**
 * Renews the leases of every watched hold from one shared scheduler thread: each period, all holds in batches of up
 * to {@value #BATCH_SIZE} locks of one type per script call, the type's renewal script, grouped as {@link Batching}
 * says (by Redis Cluster slot on a cluster, by lock behind a sharding proxy). The batches are pipelined on the shared
 * connection, {@value PipelinedRound#IN_FLIGHT} in flight at most ({@link PipelinedRound}); one after another, each
 * waited for, on a Redis Cluster with replica acknowledgements or a connection factory sharing no connection. No
 * thread or timer per lock. A hold
 * found deleted or taken is lost at once; one whose renewals keep failing is lost when its lease deadline passes,
 * and failed renewals are retried sooner than the period.
 */
public final class LeaseWatchdog {

    public static final int BATCH_SIZE = 100;

    private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

    private final Set<Hold> watched = ConcurrentHashMap.newKeySet();

    private final ScheduledExecutorService scheduler;

    private final long leaseNanos;

    private final long intervalNanos;

    private final long retryDelayNanos;

    private final Batching batching;

    /** Where the listener hears of renewals and failures: never on this watchdog's thread. */
    private final LeaseNotifier notifier;

    private final LeaseLoss leaseLoss;

    /** When set, a renewal moves the deadline only once enough replicas acknowledged it. */
    private final @Nullable ReplicaAcknowledgement replicaAcknowledgement;

    /** Sends a round's batches without waiting, where the lock types can (see {@link PipelinedRound}). */
    private final PipelinedRound pipelined;

    public LeaseWatchdog(ScheduledExecutorService scheduler, long leaseNanos, long intervalNanos,
            Batching batching, LeaseNotifier notifier, LeaseLoss leaseLoss,
            @Nullable ReplicaAcknowledgement replicaAcknowledgement) {
        this.replicaAcknowledgement = replicaAcknowledgement;
        this.scheduler = scheduler;
        this.leaseNanos = leaseNanos;
        this.intervalNanos = intervalNanos;
        this.retryDelayNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10), intervalNanos / 5);
        this.batching = batching;
        this.notifier = notifier;
        this.leaseLoss = leaseLoss;
        this.pipelined = new PipelinedRound(new Outcomes(), logger, leaseNanos,
                Math.max(leaseNanos, TimeUnit.SECONDS.toNanos(70)),
                replicaAcknowledgement);
        scheduler.schedule(this::renewRound, intervalNanos, TimeUnit.NANOSECONDS);
    }

    public void watch(Hold hold) {
        hold.watched = true;
        this.watched.add(hold);
    }

    public void unwatch(Hold hold) {
        hold.watched = false;
        this.watched.remove(hold);
    }

    public int watchedCount() {
        return this.watched.size();
    }

    public long intervalNanos() {
        return this.intervalNanos;
    }

    /** How many watched holds were last granted or renewed more than two renewal intervals ago. */
    public int overdueCount() {
        long now = System.nanoTime();
        int overdue = 0;
        for (Hold hold : this.watched) {
            if (now - hold.renewedNanos() > 2 * this.intervalNanos && !hold.isOver()) {
                overdue++;
            }
        }
        return overdue;
    }

    /**
     * Renews every watched hold, then schedules the next round one interval after this one started, or at once if this
     * one took longer: a slow round (a slow network, a starved process) must not stretch the period by its own length.
     */
    private void renewRound() {
        long started = System.nanoTime();
        try {
            renew(this.watched);
        }
        finally {
            try {
                this.scheduler.schedule(this::renewRound,
                        Math.max(0, this.intervalNanos - (System.nanoTime() - started)), TimeUnit.NANOSECONDS);
            }
            catch (RejectedExecutionException ex) {
                // the service is closing
            }
        }
    }

    /** Renews every batch: a failure in one, of any kind, never stops the others or the periodic task. */
    private void renew(Collection<Hold> holds) {
        List<List<Hold>> batches;
        try {
            batches = RenewalBatches.of(holds, this::batchGroup, BATCH_SIZE);
        }
        catch (RuntimeException ex) {
            logger.error("Lease renewal failed unexpectedly", ex); // never let the periodic task die
            return;
        }
        if (!batches.isEmpty() && batches.get(0).get(0).type().renewsAsync()) {
            try {
                this.pipelined.renew(batches); // every type of a service sends on the same connection
            }
            catch (RuntimeException ex) {
                logger.error("Lease renewal failed unexpectedly", ex); // never let the periodic task die
            }
            return;
        }
        for (List<Hold> batch : batches) {
            try {
                renewBatch(batch);
            }
            catch (RuntimeException ex) {
                logger.error("Lease renewal of a batch failed unexpectedly", ex);
            }
        }
    }

    /** Holds one script call may cover are of one type (and one slot or one key, see {@link Batching}). */
    private Object batchGroup(Hold hold) {
        return switch (this.batching) {
            case BY_TYPE -> hold.type();
            case BY_SLOT -> List.of(hold.type(), ClusterSlotHashUtil.calculateSlot("{" + hold.key() + "}"));
            case BY_LOCK -> List.of(hold.type(), hold.key());
        };
    }

    /** One batch after another, each waited for (and followed by its WAIT): where batches cannot be pipelined. */
    private void renewBatch(List<Hold> batch) {
        long sentNanos = System.nanoTime();
        int[] renewed;
        try {
            renewed = batch.get(0).type().renew(batch, this.leaseNanos);
        }
        catch (RuntimeException ex) {
            renewalFailed(batch, sentNanos, ex);
            return;
        }
        ReplicaAcknowledgement acknowledgement = this.replicaAcknowledgement;
        if (acknowledgement != null) {
            long acknowledged = acknowledgement.await(batch.get(0).type().context.scripts());
            if (acknowledged < acknowledgement.replicas()) {
                renewalFailed(batch, sentNanos, new LockUnavailableException(batch.get(0).key(),
                        "A renewal of " + batch.size() + " lease(s) was applied on the master but "
                                + acknowledgement.shortfall(acknowledged)));
                return;
            }
        }
        renewed(batch, sentNanos, renewed, true);
    }

    /**
     * Handles a batch's answer: reports each hold found lost, and, when {@code extend}, moves the deadline of each
     * renewed one (see {@link #extended}).
     */
    private void renewed(List<Hold> batch, long sentNanos, int[] renewed, boolean extend) {
        long answeredNanos = System.nanoTime();
        for (int i = 0; i < renewed.length; i++) {
            Hold hold = batch.get(i);
            if (renewed[i] == ScriptReplies.NOT_HELD_BY_OWNER && !hold.isFinished()) {
                this.leaseLoss.lose(hold, new LeaseLostException(hold.key(),
                        LossReasons.notHeld(hold, sentNanos, answeredNanos)));
            }
        }
        if (extend) {
            extended(batch, sentNanos, renewed);
        }
    }

    /** Moves the deadline of each hold the batch renewed by the time the call was sent, and says how many. */
    private void extended(List<Hold> batch, long sentNanos, int[] renewed) {
        int count = 0;
        for (int i = 0; i < renewed.length; i++) {
            if (renewed[i] == ScriptReplies.RENEWED) {
                batch.get(i).extendDeadline(sentNanos, this.leaseNanos);
                count++;
            }
        }
        if (count > 0) {
            this.notifier.renewed(count);
        }
    }

    private void renewalFailed(List<Hold> batch, long sentNanos, RuntimeException cause) {
        List<Hold> retry = new ArrayList<>(batch.size());
        for (Hold hold : batch) {
            if (hold.isFinished() || !this.watched.contains(hold)) {
                continue;
            }
            if (sentNanos - hold.deadlineNanos() >= 0) {
                this.leaseLoss.lose(hold, new LeaseLostException(hold.key(), LossReasons.renewalsFailed(hold, cause),
                        cause));
                continue;
            }
            LeaseHolder handle = hold.firstHandle();
            if (handle != null) {
                this.notifier.emit(new LockEvent.RenewalFailed(handle, cause));
            }
            retry.add(hold);
        }
        if (!retry.isEmpty()) {
            String line = "Could not renew " + retry.size() + " lock lease(s); retrying: " + cause;
            this.notifier.execute(() -> logger.warn(line)); // a log that blocks must not delay the retry
            this.scheduler.schedule(() -> renew(retry), this.retryDelayNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The pipelined round's answers, handled as the sequential path handles them. */
    private final class Outcomes implements PipelinedRound.Outcomes {

        @Override
        public void renewed(List<Hold> batch, long sentNanos, int[] renewed, boolean extend) {
            LeaseWatchdog.this.renewed(batch, sentNanos, renewed, extend);
        }

        @Override
        public void extended(List<Hold> batch, long sentNanos, int[] renewed) {
            LeaseWatchdog.this.extended(batch, sentNanos, renewed);
        }

        @Override
        public void renewalFailed(List<Hold> batch, long sentNanos, RuntimeException cause) {
            LeaseWatchdog.this.renewalFailed(batch, sentNanos, cause);
        }
    }

    /** Which holds one renewal script call may cover: all of its keys must be on the server it goes to. */
    public enum Batching {
        /** Any holds of one type: a single master. */
        BY_TYPE,
        /** Holds of one type in one Redis Cluster slot. */
        BY_SLOT,
        /** Holds of one type and one key (one hash tag): a proxy such as Twemproxy routes by the first key only. */
        BY_LOCK
    }

    /**
     * Where the watchdog reports a lost lease: the hold is lost when this returns, and the listener and callbacks hear
     * of it through the {@link LeaseNotifier}, never on the watchdog's thread.
     */
    @FunctionalInterface
    public interface LeaseLoss {

        void lose(Hold hold, LeaseLostException reason);
    }
}
