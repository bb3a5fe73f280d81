package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.DistlockTypedClients;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockType;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.redis.RedisProbe;
import dev.distlock.bench.redis.ServerUsage;
import dev.distlock.bench.report.BarChart;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;

/**
 * Scenario 10: capacity from measurement. Redis CPU per lock cycle of each distlock lock type at saturation on one
 * server, and on a 3-master Redis Cluster per shard; from these, the cycles per second one Redis core carries and the
 * shards a rate needs ({@link Capacity}).
 */
final class CapacityScenario implements Scenario {

    static final int MASTERS = 3;

    private final Map<LockType, Measurement> single = new EnumMap<>(LockType.class);

    private final Map<LockType, Measurement> cluster = new EnumMap<>(LockType.class);

    private final Map<LockType, List<ServerUsage[]>> shards = new EnumMap<>(LockType.class);

    private volatile LockType current;

    @Override
    public String id() {
        return "10";
    }

    @Override
    public String title() {
        return "Capacity: Redis CPU per cycle of each lock type, one server and a 3-master Cluster";
    }

    @Override
    public String description() {
        return """
                distlock only, through its non-blocking API: one thread keeps N cycles in flight (--in-flight), each \
                chain on keys of its own, of one lock type at a time: exclusive, read, write, fair, and `acquireAll` \
                of 3 exclusive keys (multi-key); the types take turns iteration by iteration as implementations do \
                elsewhere. This keeps the server as busy as the client can (see "busy cores": near 1.0 means one \
                Redis core saturated), and *Redis CPU µs/cycle* (INFO cpu over the iteration, per completed cycle) \
                gives the capacity of a core: 10⁶ ÷ µs/cycle cycles/s. Then the same on a Redis Cluster of %d masters \
                (no replicas, the same redis-server build, all on this machine) with %d× the cycles in flight, keys \
                spread over the slots: *per shard* is each master's CPU over the cycles it served (the run's \
                cycles apportioned by its share of the commands Redis ran), which should equal the single \
                server's; the cluster bus's own chatter is included. The second table turns the dearer of the two \
                into shards needed for a rate.""".formatted(MASTERS, MASTERS);
    }

    @Override
    public boolean covers(Implementation implementation) {
        return implementation == Implementation.DISTLOCK || implementation == Implementation.DISTLOCK_ASYNC;
    }

    @Override
    public List<Implementation> covered(List<Implementation> implementations) {
        return implementations.stream().filter(this::covers).limit(1).toList();
    }

    @Override
    public Duration estimate(RunConfig config, List<Implementation> implementations) {
        return config.timedLoad().plusSeconds(1).multipliedBy(LockType.values().length * 2L).plusSeconds(20);
    }

    @Override
    public ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception {
        context.flush();
        context.progress("Scenario 10: capacity per lock type, one server");
        RunConfig config = context.config();
        ClientSettings settings = new ClientSettings(context.port(), config.watchdogLease(), config.maxWait());
        try (DistlockTypedClients client = DistlockTypedClients.standalone(settings)) {
            this.single.putAll(measure(client, config.inFlight(), context, () -> context.probe().start()::finish));
        }
        String clusterNote = "";
        try {
            measureCluster(context, settings);
        }
        catch (Exception ex) {
            clusterNote = "\nThe Cluster part did not run: " + ex + "\n";
            context.progress("  Cluster part failed: %s", ex);
        }
        Capacity capacity = new Capacity(this.single, this.cluster, this.shards);
        return new ScenarioReport(this, capacity.render(config.inFlight()) + clusterNote, Map.of(), Map.of(),
                chart());
    }

    private void measureCluster(BenchContext context, ClientSettings settings) throws Exception {
        context.progress("Scenario 10: capacity per lock type, %d-master Redis Cluster", MASTERS);
        ClusterTopology topology = context.startCluster(MASTERS);
        try (DistlockTypedClients client = DistlockTypedClients.cluster(topology.seedNodes(), settings)) {
            List<RedisProbe> probes = topology.masters().stream().map(RedisProbe::new).toList();
            Supplier<BenchContext.ServerWindow> windows = () -> {
                List<RedisProbe.Window> open = probes.stream().map(RedisProbe::start).toList();
                return () -> {
                    ServerUsage[] perShard = new ServerUsage[open.size()];
                    ServerUsage sum = ServerUsage.NONE;
                    for (int i = 0; i < perShard.length; i++) {
                        perShard[i] = open.get(i).finish();
                        sum = sum.plus(perShard[i]);
                    }
                    this.shards.computeIfAbsent(this.current, type -> new ArrayList<>()).add(perShard);
                    return sum;
                };
            };
            this.cluster.putAll(measure(client, context.config().inFlight() * MASTERS, context, windows));
        }
        finally {
            topology.nodes().forEach(RedisNode::close);
        }
    }

    private Map<LockType, Measurement> measure(DistlockTypedClients client, int inFlight, BenchContext context,
            Supplier<BenchContext.ServerWindow> windows) throws Exception {
        Duration timeout = context.config().iteration().plus(context.config().maxWait()).plusSeconds(30);
        Map<LockType, BenchContext.Iteration> iterations = new LinkedHashMap<>();
        for (LockType type : LockType.values()) {
            String prefix = "s10:" + type.name().toLowerCase(Locale.ROOT) + ":";
            iterations.put(type, length -> {
                this.current = type;
                return new AsyncLoad(client.of(type), chain -> prefix + chain, null, inFlight).run(length, timeout);
            });
        }
        return context.measure(iterations, LockType::label, windows);
    }

    private List<BarChart.Panel> chart() {
        Map<String, Measurement> rows = new LinkedHashMap<>();
        this.single.forEach((type, m) -> rows.put(type.label(), m));
        this.cluster.forEach((type, m) -> rows.put(type.label() + ", Cluster", m));
        return ScenarioReport.cyclePanels(rows, label -> label);
    }
}
