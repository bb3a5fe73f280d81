package dev.distlock;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-core's public surface is what its module descriptor exports, and it grows only on purpose: a new public type in
 * an exported package is new API (add it below after a review of its name and Javadoc); a new public type anywhere
 * else is refused (make it package-private, or, if another engine package must reach it, add it to the engine list
 * below, where it stays invisible outside the module). The other modules of this repository import only exported
 * packages, except where the descriptor exports a package to them by name.
 */
class PublicSurfaceTest {

    static final Set<String> EXPORTED = Set.of("dev.distlock", "dev.distlock.redis", "dev.distlock.redis.quorum",
            "dev.distlock.reactor");

    /** The API: every public top-level type of the exported packages. */
    static final Set<String> API = Set.of("dev.distlock.AsyncLockService", "dev.distlock.HeldLock",
            "dev.distlock.KeyText", "dev.distlock.LeaseExpiredOnArrivalException", "dev.distlock.LeaseLostException",
            "dev.distlock.LockException", "dev.distlock.LockHandle", "dev.distlock.LockInspection",
            "dev.distlock.LockStatus", "dev.distlock.LockHolder", "dev.distlock.LockInstance",
            "dev.distlock.LockEvent", "dev.distlock.LockEventListener", "dev.distlock.LockInterruptedException",
            "dev.distlock.LockLayoutException", "dev.distlock.LockMode", "dev.distlock.LockOptions", "dev.distlock.LockPermissionException", "dev.distlock.LockService",
            "dev.distlock.LockTimeoutException", "dev.distlock.LockUnavailableException", "dev.distlock.LockView",
            "dev.distlock.MultiLockHandle", "dev.distlock.NotLockOwnerException", "dev.distlock.RestartGraceException",
            "dev.distlock.reactor.ReactiveLocks", "dev.distlock.redis.EvictionPolicyCheck",
            "dev.distlock.redis.RedisLockService", "dev.distlock.redis.RedisLockServiceBuilder",
            "dev.distlock.redis.WaitStrategy", "dev.distlock.redis.quorum.QuorumLockService",
            "dev.distlock.redis.quorum.QuorumLockServiceBuilder");

    /** Public only so that another engine package can reach them; not exported, so not visible outside the module. */
    static final Set<String> ENGINE = Set.of("dev.distlock.internal.AbstractLockHandle",
            "dev.distlock.internal.AbstractLockService", "dev.distlock.internal.DaemonThreads",
            "dev.distlock.internal.Durations", "dev.distlock.internal.Futures", "dev.distlock.internal.Listeners",
            "dev.distlock.internal.LockBackend", "dev.distlock.internal.LostCallbacks",
            "dev.distlock.internal.Uninterrupted", "dev.distlock.redis.lease.Hold",
            "dev.distlock.redis.lease.LeaseHolder", "dev.distlock.redis.lease.LeaseNotifier",
            "dev.distlock.redis.lease.LeaseWatchdog",
            "dev.distlock.redis.lease.ReplicaAcknowledgement", "dev.distlock.redis.script.AcknowledgedReply",
            "dev.distlock.redis.script.AcknowledgedClusterScripts",
            "dev.distlock.redis.script.LockKeys", "dev.distlock.redis.script.LockScripts",
            "dev.distlock.redis.script.LockTarget", "dev.distlock.redis.script.LockType",
            "dev.distlock.redis.script.LockTypes", "dev.distlock.redis.script.RestartGrace",
            "dev.distlock.redis.script.ScriptArgument", "dev.distlock.redis.script.ScriptCall",
            "dev.distlock.redis.script.ScriptLayout", "dev.distlock.redis.script.ScriptReplies",
            "dev.distlock.redis.script.ScriptRouter", "dev.distlock.redis.script.Scripts",
            "dev.distlock.redis.script.ShardedPubSub", "dev.distlock.redis.wakeup.ChannelSubscriber",
            "dev.distlock.redis.wakeup.ReleaseSubscriptions", "dev.distlock.redis.wakeup.Waiter");

    /** Modules of this repository that may use a package the descriptor exports to them by name. */
    static final java.util.Map<String, String> MODULE_NAMES = java.util.Map.of("lock-test", "dev.distlock.test");

    /** Modules that may read the engine's inside, and why: none of them is published or used by an application. */
    static final java.util.Map<String, String> TOOLS = java.util.Map.of("lock-benchmarks",
            "ScriptCost runs the engine's scripts one by one to measure each one's Redis CPU");

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?(dev\\.distlock\\.[\\w.]+?)\\.[A-Z]",
            Pattern.MULTILINE);

    @Test
    void theDescriptorExportsTheApiPackagesToEveryoneAndNothingElse() throws IOException {
        ModuleDescriptor descriptor = descriptor();
        assertThat(descriptor.name()).isEqualTo("dev.distlock");
        Set<String> toEveryone = descriptor.exports().stream().filter(exports -> !exports.isQualified())
                .map(Exports::source).collect(Collectors.toSet());
        assertThat(toEveryone).isEqualTo(EXPORTED);
        assertThat(descriptor.exports().stream().filter(Exports::isQualified).flatMap(e -> e.targets().stream()))
                .allSatisfy(target -> assertThat(MODULE_NAMES).containsValue(target));
        assertThat(descriptor.opens()).as("no package is open to reflection").isEmpty();
    }

    @Test
    void everyPublicTypeIsApiOrAKnownEngineType() throws Exception {
        Set<String> api = new TreeSet<>();
        Set<String> engine = new TreeSet<>();
        for (String name : classNames()) {
            Class<?> type = Class.forName(name, false, getClass().getClassLoader());
            if (!Modifier.isPublic(type.getModifiers())) {
                continue;
            }
            (EXPORTED.contains(type.getPackageName()) ? api : engine).add(name);
        }
        assertThat(api).as("public types of the exported packages (new API must be added to API on purpose)")
                .containsExactlyInAnyOrderElementsOf(API);
        assertThat(engine).as("public types outside the exported packages (make new ones package-private)")
                .containsExactlyInAnyOrderElementsOf(ENGINE);
    }

    @Test
    void theOtherModulesImportOnlyWhatIsExportedToThem() throws IOException {
        Path repository = classes().getParent().getParent().getParent();
        ModuleDescriptor descriptor = descriptor();
        TreeMap<String, String> violations = new TreeMap<>();
        try (Stream<Path> modules = Files.list(repository)) {
            for (Path module : modules.filter(path -> Files.isDirectory(path.resolve("src/main"))).toList()) {
                String moduleName = module.getFileName().toString();
                if (moduleName.equals("lock-core") || TOOLS.containsKey(moduleName)) {
                    continue;
                }
                Set<String> allowed = new TreeSet<>(EXPORTED);
                descriptor.exports().stream().filter(e -> e.targets().contains(MODULE_NAMES.getOrDefault(moduleName, "")))
                        .forEach(e -> allowed.add(e.source()));
                try (Stream<Path> files = Files.walk(module.resolve("src/main"))) {
                    for (Path file : files.filter(f -> f.toString().endsWith(".java") || f.toString().endsWith(".kt"))
                            .toList()) {
                        Matcher imports = IMPORT.matcher(Files.readString(file));
                        while (imports.find()) {
                            String used = imports.group(1);
                            if (isCorePackage(used) && !allowed.contains(used)) {
                                violations.put(repository.relativize(file).toString(), used);
                            }
                        }
                    }
                }
            }
        }
        assertThat(violations).as("main code of other modules importing lock-core packages not exported to them")
                .isEmpty();
    }

    private static boolean isCorePackage(String packageName) {
        return packageName.equals("dev.distlock") || packageName.startsWith("dev.distlock.internal")
                || packageName.startsWith("dev.distlock.redis") || packageName.startsWith("dev.distlock.reactor");
    }

    private static ModuleDescriptor descriptor() throws IOException {
        try (InputStream in = Files.newInputStream(classes().resolve("module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    private static Set<String> classNames() throws IOException {
        Path root = classes();
        try (Stream<Path> files = Files.walk(root)) {
            return files.map(root::relativize).map(Path::toString).filter(f -> f.endsWith(".class"))
                    .filter(f -> !f.contains("$") && !f.endsWith("module-info.class") && !f.endsWith("package-info.class"))
                    .map(f -> f.substring(0, f.length() - ".class".length()).replace('/', '.'))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static Path classes() {
        try {
            return Path.of(LockService.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        }
        catch (URISyntaxException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
