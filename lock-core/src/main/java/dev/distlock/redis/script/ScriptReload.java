package dev.distlock.redis.script;

import static dev.distlock.internal.Futures.unwrap;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends script calls on the shared connection as EVALSHA, loads the service's script set with {@code SCRIPT LOAD}
 * (which Redis 8 and Valkey never evict, unlike scripts only {@code EVAL} loaded), and recovers from NOSCRIPT (after
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
 * {@code SCRIPT LOAD}, a sharding proxy, Redis lost it {@link #MOST_ROUNDS} times in a row as it loaded), the held
 * calls go anyway and each that meets NOSCRIPT goes again as EVAL in a recovery of its own: that keeps calls going
 * without the guarantee.
 *
 * <p>Costs a call one atomic increment and decrement and one volatile read; locks only during a recovery.
 */
final class ScriptReload {

    /** Loads of the set a recovery tries while Redis loses part of it as it loads (a flush in between). */
    static final int MOST_ROUNDS = 10;

    /**
     * One call sent on the shared connection, whose reply Lettuce reads as {@code output} says; {@code done}
     * completes it (with a failure other than NOSCRIPT).
     */
    record Call<T>(RedisScript<?> script, ScriptOutputType output, byte[][] keys, byte[][] args,
            CompletableFuture<T> reply, RedisScriptingAsyncCommands<byte[], byte[]> commands,
            BiConsumer<T, Throwable> done) {
    }

    /**
     * What every recovery of a service shares.
     *
     * @param scripts the scripts to load: the variant of each that the service runs
     * @param loads whether to send SCRIPT LOAD (not behind a sharding proxy, which does not pass it on)
     * @param boundMillis the lock call timeout when shorter than the client's, else 0 (see AsyncScriptRunner)
     * @param loadMillis how long a recovery waits for each load of the script set
     */
    record Settings(Supplier<List<RedisScript<?>>> scripts, boolean loads, long boundMillis, long loadMillis) {
    }

    private final Settings settings;

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

    ScriptReload(Settings settings, @Nullable String nodeId) {
        this.settings = settings;
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

    /**
     * Loads the script set ({@code SCRIPT LOAD}) and checks with one {@code SCRIPT EXISTS} that all of it is there,
     * again if not (at most {@link #MOST_ROUNDS} times): on this recovery's node of a Redis Cluster, on every node for
     * one made without a node, else on {@code commands}. Completes with the last failure, or null once the set is
     * there; never exceptionally.
     */
    @SuppressWarnings("unchecked")
    CompletableFuture<Throwable> load(RedisScriptingAsyncCommands<byte[], byte[]> commands) {
        if (!this.settings.loads()) {
            return CompletableFuture.completedFuture(null);
        }
        if (!(commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)) {
            return load(CompletableFuture.completedFuture(commands), MOST_ROUNDS);
        }
        StatefulRedisClusterConnection<byte[], byte[]> connection =
                (StatefulRedisClusterConnection<byte[], byte[]>) cluster.getStatefulConnection();
        List<CompletableFuture<Throwable>> nodes = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (this.nodeId == null || this.nodeId.equals(node.getNodeId())) {
                nodes.add(load(connection.getConnectionAsync(node.getNodeId())
                    .thenApply(StatefulRedisConnection::async), MOST_ROUNDS));
            }
        }
        return CompletableFuture.allOf(nodes.toArray(CompletableFuture[]::new)).thenApply(unused -> nodes.stream()
            .map(CompletableFuture::join).filter(java.util.Objects::nonNull).findFirst().orElse(null));
    }

    private CompletableFuture<Throwable> load(
            CompletableFuture<? extends RedisScriptingAsyncCommands<byte[], byte[]>> node, int rounds) {
        List<RedisScript<?>> set = this.settings.scripts().get();
        String[] shas = set.stream().map(RedisScript::getSha1).toArray(String[]::new);
        return node.thenCompose(commands -> {
            List<CompletableFuture<?>> sent = new ArrayList<>();
            for (RedisScript<?> script : set) {
                sent.add(commands.scriptLoad(script.getScriptAsString().getBytes(StandardCharsets.UTF_8))
                    .toCompletableFuture());
            }
            CompletableFuture<List<Boolean>> exists = commands.scriptExists(shas).toCompletableFuture();
            sent.add(exists);
            // done at the first failure: the commands still waiting are cancelled, so that Lettuce does not send them
            // again after a reconnect (a proxy that does not know SCRIPT LOAD closes the connection)
            CompletableFuture<Void> all = new CompletableFuture<>();
            AtomicInteger left = new AtomicInteger(sent.size());
            sent.forEach(command -> command.whenComplete((unused, failure) -> {
                if (failure != null) {
                    all.completeExceptionally(failure);
                }
                else if (left.decrementAndGet() == 0) {
                    all.complete(null);
                }
            }));
            all.whenComplete((unused, failure) -> sent.forEach(command -> command.cancel(false)));
            return all.thenCompose(unused -> exists).thenAccept(found -> {
                if (found.contains(Boolean.FALSE)) {
                    throw new IllegalStateException("Redis lost part of the lock scripts as they loaded");
                }
            }).orTimeout(Math.max(1, this.settings.loadMillis()), TimeUnit.MILLISECONDS)
                .whenComplete((unused, failure) -> all.completeExceptionally(new CancellationException()));
        })
            .orTimeout(Math.max(1, this.settings.loadMillis()), TimeUnit.MILLISECONDS)
            .handle((unused, failure) -> (failure != null) ? unwrap(failure) : null)
            .thenCompose(failure -> (failure instanceof IllegalStateException && rounds > 1) ? load(node, rounds - 1)
                    : CompletableFuture.completedFuture(failure));
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
                    ? bounded(this.settings.boundMillis(), call.commands().<T>eval(call.script().getScriptAsString(),
                            call.output(), call.keys(), call.args()))
                    : bounded(this.settings.boundMillis(), call.commands().<T>evalsha(call.script().getSha1(),
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
            loaded = load(commands);
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
}
