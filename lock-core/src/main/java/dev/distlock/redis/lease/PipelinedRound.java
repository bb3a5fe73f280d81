package dev.distlock.redis.lease;

import static dev.distlock.internal.Futures.unwrap;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.QueryTimeoutException;

import dev.distlock.LockUnavailableException;

/**
 * One renewal round's batches sent without waiting, at most {@link #IN_FLIGHT} unanswered at a time, on the
 * connection every lock call uses: a round of 1,000 batches costs about 1,000 / {@value #IN_FLIGHT} round trips'
 * waits rather than 1,000. Each answer is handled on the watchdog's thread as it comes (the Redis client's thread
 * only queues it), so no listener runs on, or delays, the client's thread. With replica acknowledgements, one
 * {@code WAIT} after the last answer covers every batch (it counts all earlier writes of its connection, which sent
 * them all), and only then do the renewed deadlines move; a hold found lost is reported at once.
 */
final class PipelinedRound {

    /** Batches sent and not answered at most, per round. */
    static final int IN_FLIGHT = 32;

    /** What the round does with each batch's answer: the watchdog's bookkeeping, on the round's thread. */
    interface Outcomes {

        /** Reports each hold found lost and, when {@code extend}, moves the deadlines of the renewed ones. */
        void renewed(List<Hold> batch, long sentNanos, int[] renewed, boolean extend);

        /** Moves the deadlines of the renewed holds, once the round's {@code WAIT} counted enough replicas. */
        void extended(List<Hold> batch, long sentNanos, int[] renewed);

        /** The batch's call failed: retried, or lost past the deadline. */
        void renewalFailed(List<Hold> batch, long sentNanos, RuntimeException cause);
    }

    private final Outcomes watchdog;

    /** The watchdog's log. */
    private final Log logger;

    private final long leaseNanos;

    /** How long the round waits for any one answer (the client's own timeout bounds each call before that). */
    private final long answerNanos;

    private final @Nullable ReplicaAcknowledgement replicaAcknowledgement;

    PipelinedRound(Outcomes watchdog, Log logger, long leaseNanos, long answerNanos,
            @Nullable ReplicaAcknowledgement replicaAcknowledgement) {
        this.watchdog = watchdog;
        this.logger = logger;
        this.leaseNanos = leaseNanos;
        this.answerNanos = answerNanos;
        this.replicaAcknowledgement = replicaAcknowledgement;
    }

    /** A batch's answer: per hold what the script answered, or the call's failure. */
    private record Answer(List<Hold> batch, long sentNanos, int @Nullable [] renewed, @Nullable Throwable failure) {
    }

    /** Renews the batches; a failure in one, of any kind, never stops the others. */
    void renew(List<List<Hold>> batches) {
        BlockingQueue<Answer> answers = new LinkedBlockingQueue<>();
        Map<List<Hold>, Long> unanswered = new IdentityHashMap<>();
        List<Answer> toAcknowledge = new ArrayList<>();
        int sent = 0;
        while (sent < batches.size() || !unanswered.isEmpty()) {
            while (sent < batches.size() && unanswered.size() < IN_FLIGHT) {
                List<Hold> batch = batches.get(sent++);
                long sentNanos = System.nanoTime();
                unanswered.put(batch, sentNanos);
                send(batch).whenComplete((renewed, failure) -> answers.add(new Answer(batch, sentNanos, renewed,
                        failure)));
            }
            Answer answer;
            try {
                answer = answers.poll(this.answerNanos, TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt(); // the service is closing
                return;
            }
            if (answer == null) { // no answer within the bound: every unanswered batch failed
                unanswered.forEach((batch, sentNanos) -> failed(batch, sentNanos, new QueryTimeoutException(
                        "Redis did not answer a renewal within " + TimeUnit.NANOSECONDS.toMillis(this.answerNanos)
                                + " ms")));
                unanswered.clear();
                continue;
            }
            if (unanswered.remove(answer.batch()) == null) {
                continue; // answered after the round gave up on it
            }
            try {
                if (answer.failure() != null) {
                    this.watchdog.renewalFailed(answer.batch(), answer.sentNanos(), runtime(answer.failure()));
                }
                else if (this.replicaAcknowledgement == null) {
                    this.watchdog.renewed(answer.batch(), answer.sentNanos(), answer.renewed(), true);
                }
                else {
                    this.watchdog.renewed(answer.batch(), answer.sentNanos(), answer.renewed(), false); // losses
                    toAcknowledge.add(answer);
                }
            }
            catch (RuntimeException ex) {
                logger.error("Lease renewal of a batch failed unexpectedly", ex);
            }
        }
        acknowledge(toAcknowledge);
    }

    private CompletableFuture<int[]> send(List<Hold> batch) {
        try {
            return batch.get(0).type().renewAsync(batch, this.leaseNanos);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** One WAIT for every batch the round renewed: their deadlines move only once enough replicas have them. */
    private void acknowledge(List<Answer> renewed) {
        ReplicaAcknowledgement acknowledgement = this.replicaAcknowledgement;
        if (acknowledgement == null || renewed.isEmpty()) {
            return;
        }
        long acknowledged = acknowledgement.await(renewed.get(0).batch().get(0).type().context.scripts());
        for (Answer answer : renewed) {
            try {
                if (acknowledged < acknowledgement.replicas()) {
                    failed(answer.batch(), answer.sentNanos(), new LockUnavailableException(
                            answer.batch().get(0).key(), "A renewal of " + answer.batch().size()
                                    + " lease(s) was applied on the master but "
                                    + acknowledgement.shortfall(acknowledged)));
                }
                else {
                    this.watchdog.extended(answer.batch(), answer.sentNanos(), answer.renewed());
                }
            }
            catch (RuntimeException ex) {
                logger.error("Lease renewal of a batch failed unexpectedly", ex);
            }
        }
    }

    private void failed(List<Hold> batch, long sentNanos, RuntimeException cause) {
        try {
            this.watchdog.renewalFailed(batch, sentNanos, cause);
        }
        catch (RuntimeException ex) {
            logger.error("Lease renewal of a batch failed unexpectedly", ex);
        }
    }

    private static RuntimeException runtime(Throwable failure) {
        Throwable cause = unwrap(failure);
        return (cause instanceof RuntimeException runtime) ? runtime
                : new IllegalStateException("Lease renewal failed: " + cause, cause);
    }
}
