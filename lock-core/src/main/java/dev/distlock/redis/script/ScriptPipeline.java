package dev.distlock.redis.script;

import static dev.distlock.internal.Futures.unwrap;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * One server's pipeline of script calls on the shared connection (on a Redis Cluster, one per master): sends each as
 * EVALSHA of a script the service loaded ({@link ScriptSetLoad}), and recovers from NOSCRIPT (after
 * {@code SCRIPT FLUSH}, a restart, a failover to a replica that never saw the scripts) without reordering calls.
 *
 * <p>Calls are pipelined: when call 1 answers NOSCRIPT, calls sent after it are on the wire already. Were call 1 sent
 * again as EVAL, or its script alone loaded, call 2 could find its own script loaded and run first (a
 * {@code releaseAsync()} followed by another owner's {@code tryAcquire()} of the key would find the lock still held).
 * So this connection never loads one script alone, and loads only while nothing it sent is unanswered: the first
 * NOSCRIPT holds new calls back; once every call sent before has answered, the calls that met NOSCRIPT are sent
 * again as EVAL, in the order they were sent (nothing else of this connection's is on the wire then), the whole set is
 * loaded behind them and one {@code SCRIPT EXISTS} checks that all of it is there (a flush between two loads leaves
 * part); then the held calls go. Seen from this connection the set is then there whole or (after a flush) not at all,
 * so a call after one that met NOSCRIPT meets it too and is sent again after it. Not ruled out: another client loading
 * part of the set (a script alone, by EVAL) between two calls. Where the set cannot be loaded (a user not granted
 * {@code SCRIPT LOAD}, a sharding proxy, Redis lost it {@link ScriptSetLoad#MOST_ROUNDS} times in a row as it
 * loaded), the held calls go anyway and each that meets NOSCRIPT goes again as EVAL in a recovery of its own: that
 * keeps calls going without the guarantee.
 *
 * <p>Costs a call one atomic increment and decrement and one volatile read; locks only during a recovery.
 */
final class ScriptPipeline {

    /**
     * The pipelines of one shared connection: that of a standalone server (or a Sentinel's master), or on a Redis
     * Cluster one per master, each recovering on its own.
     */
    static final class PerServer {

        private final ScriptSetLoad scripts;

        private final long boundMillis;

        /** A standalone server's; on a Redis Cluster, one whose recoveries would load on every node. */
        private final ScriptPipeline pipeline;

        /** On a Redis Cluster: each master's pipeline, by node id. */
        private final Map<String, ScriptPipeline> nodes = new ConcurrentHashMap<>();

        PerServer(ScriptSetLoad scripts, long boundMillis) {
            this.scripts = scripts;
            this.boundMillis = boundMillis;
            this.pipeline = new ScriptPipeline(scripts, boundMillis, null);
        }

        /** The pipeline of the server a call to {@code key} goes to: on a Redis Cluster, the slot's master's. */
        ScriptPipeline of(RedisScriptingAsyncCommands<byte[], byte[]> commands, byte[] key) {
            if (!(commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)) {
                return this.pipeline;
            }
            RedisClusterNode master = cluster.getStatefulConnection().getPartitions()
                .getMasterBySlot(SlotHash.getSlot(key));
            return (master == null) ? this.pipeline : this.nodes.computeIfAbsent(master.getNodeId(),
                    node -> new ScriptPipeline(this.scripts, this.boundMillis, node));
        }
    }

    /**
     * One call sent on the shared connection, whose reply Lettuce reads as {@code output} says; {@code done}
     * completes it (with a failure other than NOSCRIPT).
     */
    record Call<T>(RedisScript<?> script, ScriptOutputType output, byte[][] keys, byte[][] args,
            CompletableFuture<T> reply, RedisScriptingAsyncCommands<byte[], byte[]> commands,
            BiConsumer<T, Throwable> done) {
    }

    /** Loads the set during a recovery. */
    private final ScriptSetLoad scripts;

    /** The lock call timeout when shorter than the client's, else 0 (see {@link #bounded}). */
    private final long boundMillis;

    /** On a Redis Cluster, the node whose calls this recovers (each node has its own); else null. */
    private final @Nullable String nodeId;

    /** Calls sent and not answered yet. */
    private final AtomicInteger inFlight = new AtomicInteger();

    /** Set by a NOSCRIPT answer until the calls it held back are sent. */
    private volatile boolean recovering;

    /** Set while the script set loads; guarded by this. */
    private boolean loading;

    /** Where to load the set once the refused calls, sent again, have answered; guarded by this. */
    private @Nullable RedisScriptingAsyncCommands<byte[], byte[]> loadOn;

    /** Calls that met NOSCRIPT, in the order they were sent (that of their answers); guarded by this. */
    private final List<Call<?>> refused = new ArrayList<>();

    /** Calls held back during a recovery, in the order they were made; guarded by this. */
    private final List<Call<?>> held = new ArrayList<>();

    /** @param nodeId on a Redis Cluster, the master whose calls this pipeline sends; else null */
    private ScriptPipeline(ScriptSetLoad scripts, long boundMillis, @Nullable String nodeId) {
        this.scripts = scripts;
        this.boundMillis = boundMillis;
        this.nodeId = nodeId;
    }

    /** Sends a call as EVALSHA, or holds it back during a recovery. */
    void send(Call<?> call) {
        this.inFlight.incrementAndGet();
        if (this.recovering) {
            answered();
            hold(call);
            return;
        }
        evalsha(call);
    }

    private synchronized void hold(Call<?> call) {
        if (this.recovering) {
            this.held.add(call);
            return;
        }
        this.inFlight.incrementAndGet(); // the recovery ended meanwhile, having sent what it held
        evalsha(call);
    }

    private void evalsha(Call<?> call) {
        send(call, false);
    }

    private <T> void send(Call<T> call, boolean eval) {
        CompletionStage<T> sent;
        try {
            sent = eval
                    ? bounded(this.boundMillis, call.commands().<T>eval(call.script().getScriptAsString(),
                            call.output(), call.keys(), call.args()))
                    : bounded(this.boundMillis, call.commands().<T>evalsha(call.script().getSha1(),
                            call.output(), call.keys(), call.args()));
        }
        catch (RuntimeException ex) { // not sent (no connection to the slot's node, the client closed)
            sent = CompletableFuture.failedFuture(ex);
        }
        sent.whenComplete((value, failure) -> {
            try {
                if (failure != null && unwrap(failure) instanceof RedisNoScriptException && !call.reply().isDone()) {
                    synchronized (this) { // before this call counts as answered: no recovery starts without it
                        this.recovering = true;
                        this.refused.add(call);
                    }
                }
                else {
                    call.done().accept(value, failure);
                }
            }
            finally {
                answered();
            }
        });
    }

    private void answered() {
        if (this.inFlight.decrementAndGet() == 0 && this.recovering) {
            drain();
        }
    }

    /**
     * Once every call sent before the recovery has answered (new calls are held): the refused calls go again at once,
     * in the order they were sent, as EVAL (which no missing script refuses), so that each costs one round trip more,
     * as a plain EVAL fallback would, and nothing another part of the service sends meanwhile (a WAIT that blocks the
     * connection) gets ahead of it. Once they have answered (on a Redis Cluster the set loads on a connection of its
     * own, which must not check the set before they loaded their scripts), the set loads; then the held calls go.
     */
    private void drain() {
        RedisScriptingAsyncCommands<byte[], byte[]> commands;
        synchronized (this) {
            if (!this.recovering || this.loading || this.inFlight.get() != 0) {
                return;
            }
            if (!this.refused.isEmpty()) {
                this.loadOn = this.refused.get(0).commands();
                List<Call<?>> refused = new ArrayList<>(this.refused);
                this.refused.clear();
                this.inFlight.incrementAndGet(); // until all are sent: none answered at once starts the load early
                send(refused, true);
                commands = null;
            }
            else {
                commands = this.loadOn;
                this.loadOn = null;
                this.loading = commands != null;
                if (commands == null) {
                    return;
                }
            }
        }
        if (commands == null) {
            answered(); // the refused calls are sent: the set loads once they have answered
            return;
        }
        CompletableFuture<Throwable> loaded;
        try {
            loaded = this.scripts.load(commands, this.nodeId);
        }
        catch (RuntimeException ex) {
            loaded = CompletableFuture.completedFuture(ex);
        }
        loaded.whenComplete((failure, unused) -> sendHeld());
    }

    /**
     * Sends the held calls. A call may complete at once on this thread and its caller send the next, which is held and
     * sent in the next turn; one that meets NOSCRIPT again (the set could not be loaded) waits for the next recovery.
     */
    private synchronized void sendHeld() {
        try {
            while (!this.held.isEmpty()) {
                List<Call<?>> held = new ArrayList<>(this.held);
                this.held.clear();
                send(held, false);
            }
        }
        finally {
            this.loading = false;
            this.recovering = !this.refused.isEmpty();
        }
        if (this.recovering && this.inFlight.get() == 0) {
            drain();
        }
    }

    private void send(List<Call<?>> calls, boolean eval) {
        for (Call<?> call : calls) {
            if (!call.reply().isDone()) { // a caller that gave up (a timeout) has already sent what follows it
                this.inFlight.incrementAndGet();
                send(call, eval);
            }
        }
    }

    /**
     * The command, completed with a timeout after the lock call timeout when that is the shorter: completed, Lettuce
     * neither sends it after a reconnect nor waits for it longer (as with its own command timeout).
     */
    static <T> CompletionStage<T> bounded(long boundMillis, RedisFuture<T> command) {
        return (boundMillis > 0) ? command.toCompletableFuture().orTimeout(boundMillis, TimeUnit.MILLISECONDS)
                : command;
    }

    /** Keys or arguments as the bytes Lettuce's byte-array codec sends: UTF-8 of each one's text. */
    static byte[][] encode(Object[] values) {
        byte[][] encoded = new byte[values.length][];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = values[i].toString().getBytes(StandardCharsets.UTF_8);
        }
        return encoded;
    }
}
