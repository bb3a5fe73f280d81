package dev.distlock.reliability.mixed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockService;

/**
 * The previous layout's lock engine inside this JVM, for the fault explorer's mixed mode: {@link PreviousLayout}'s
 * build of lock-core, loaded child-first by its own class loader, except the API package {@code dev.distlock}, which
 * both engines share. The previous services therefore implement today's {@link LockService}, take today's options
 * and throw today's exception classes (held, unavailable, lease lost keep their meaning with no translation); all
 * that runs against Redis, the engine and its Lua scripts, is the previous code. An API change between the two
 * ({@link PreviousApi}) stops the mode before it runs; nothing is adapted.
 */
public final class PreviousEngine {

    private static PreviousEngine loaded;

    private final String commit;

    private final ClassLoader loader;

    private final long buildMillis;

    private PreviousEngine(String commit, ClassLoader loader, long buildMillis) {
        this.commit = commit;
        this.loader = loader;
        this.buildMillis = buildMillis;
    }

    /** The previous engine, built once per JVM from the ref in {@link PreviousLayout#PROPERTIES}. */
    public static synchronized PreviousEngine load() throws IOException, InterruptedException {
        if (loaded == null) {
            long start = System.nanoTime();
            Path root = PreviousLayout.repositoryRoot(Path.of(""));
            String commit = PreviousLayout.resolve(root, PreviousLayout.properties());
            String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            Path work = Files.createTempDirectory("distlock-previous-layout");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(work)));
            Path classes = PreviousLayout.build(root, commit, work, PreviousLayout.dependencies(classpath));
            List<String> differences = PreviousApi.differences(classes, PreviousEngine.class.getClassLoader());
            if (!differences.isEmpty()) {
                throw new AssertionError("The previous layout's code (" + commit + ") cannot run on today's API "
                        + "package as the explorer's mixed mode runs it (one shared API, nothing adapted): "
                        + String.join("; ", differences) + ". Run the explorer with -Dexplorer.mixed=never until "
                        + "PreviousEngine adapts these differences.");
            }
            loaded = new PreviousEngine(commit, new ChildFirst(classes, PreviousEngine.class.getClassLoader()),
                    (System.nanoTime() - start) / 1_000_000);
        }
        return loaded;
    }

    /** The commit the previous engine was built from. */
    public String commit() {
        return this.commit;
    }

    /** The class loader of the previous engine's classes and scripts. */
    public ClassLoader loader() {
        return this.loader;
    }

    /** How long taking and compiling the previous code took. */
    public long buildMillis() {
        return this.buildMillis;
    }

    /** A previous {@code RedisLockService} over {@code redis}: no restart grace, these leases. */
    public LockService redisService(StringRedisTemplate redis, Duration watchdogLease, Duration waiterLease) {
        Object builder = call(type("dev.distlock.redis.RedisLockService"), null, "builder", StringRedisTemplate.class,
                redis);
        builder = call(builder, "restartGrace", Duration.ZERO);
        builder = call(builder, "watchdogLease", watchdogLease);
        builder = call(builder, "waiterLease", waiterLease);
        return (LockService) call(builder.getClass(), builder, "build", null, null);
    }

    /** A previous {@code QuorumLockService} over {@code masters}: no restart grace, this node timeout and lease. */
    public LockService quorumService(List<StringRedisTemplate> masters, Duration nodeTimeout, Duration watchdogLease) {
        Object builder = call(type("dev.distlock.redis.quorum.QuorumLockService"), null, "builder", List.class,
                masters);
        builder = call(builder, "restartGrace", Duration.ZERO);
        builder = call(builder, "nodeTimeout", nodeTimeout);
        builder = call(builder, "watchdogLease", watchdogLease);
        return (LockService) call(builder.getClass(), builder, "build", null, null);
    }

    private Class<?> type(String name) {
        try {
            Class<?> type = Class.forName(name, true, this.loader);
            if (type.getClassLoader() != this.loader) {
                throw new AssertionError(name + " came from " + type.getClassLoader() + ", not the previous layout's "
                        + "class loader");
            }
            return type;
        }
        catch (ClassNotFoundException ex) {
            throw new AssertionError("The previous layout's code (" + this.commit + ") has no " + name, ex);
        }
    }

    private static Object call(Object builder, String method, Duration argument) {
        return call(builder.getClass(), builder, method, Duration.class, argument);
    }

    private static Object call(Class<?> type, Object target, String method, Class<?> parameter, Object argument) {
        try {
            return parameter == null ? type.getMethod(method).invoke(target)
                    : type.getMethod(method, parameter).invoke(target, argument);
        }
        catch (InvocationTargetException ex) {
            if (ex.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(type.getName() + "." + method + " failed", ex.getCause());
        }
        catch (ReflectiveOperationException ex) {
            throw new AssertionError("The previous layout's " + type.getName() + " has no usable " + method + "("
                    + (parameter == null ? "" : parameter.getSimpleName()) + ")", ex);
        }
    }

    private static void delete(Path work) {
        try (Stream<Path> walk = Files.walk(work)) {
            walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (IOException | UncheckedIOException ex) {
            // a temporary directory
        }
    }

    /**
     * Child-first for every class and resource of the previous build, except the classes of the API package
     * {@code dev.distlock} (not its subpackages), which come from the parent: the contract both engines implement.
     */
    static final class ChildFirst extends URLClassLoader {

        static {
            registerAsParallelCapable();
        }

        ChildFirst(Path classes, ClassLoader parent) throws IOException {
            super("previous-layout", new URL[] { classes.toUri().toURL() }, parent);
        }

        static boolean shared(String className) {
            return className.startsWith("dev.distlock.") && className.lastIndexOf('.') == "dev.distlock".length();
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (shared(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> type = findLoadedClass(name);
                if (type == null) {
                    try {
                        type = findClass(name);
                    }
                    catch (ClassNotFoundException ex) {
                        return super.loadClass(name, resolve);
                    }
                }
                if (resolve) {
                    resolveClass(type);
                }
                return type;
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = findResource(name);
            return own != null ? own : super.getResource(name);
        }
    }
}
