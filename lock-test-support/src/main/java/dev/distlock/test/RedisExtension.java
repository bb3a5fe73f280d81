package dev.distlock.test;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JUnit extension that injects {@link RedisNode} and {@link RedisServers} parameters (into test,
 * lifecycle and constructor parameters). Register it with {@code @ExtendWith(RedisExtension.class)}
 * or {@link RedisTest @RedisTest}.
 *
 * <ul>
 *   <li>{@code RedisNode}: one server per top-level test class (shared with its {@code @Nested}
 *       classes), started on first use. Before each test it is made usable again: resumed if paused,
 *       restarted if killed or stopped, {@code CLIENT UNPAUSE}, {@code FLUSHALL}, {@code SCRIPT FLUSH}
 *       and {@code FUNCTION FLUSH}; if that fails (say a test set a password) it is restarted.
 *       So data written in {@code @BeforeAll} does not survive into the tests. Do not close it, and do
 *       not run the tests of one class concurrently.</li>
 *   <li>{@code RedisServers}: one per top-level test class, for tests that need more servers;
 *       every server it started is stopped after the class.</li>
 * </ul>
 *
 * Both are stopped after the class through the JUnit store, also when tests fail.
 */
public final class RedisExtension implements ParameterResolver, BeforeAllCallback, BeforeEachCallback {

    private static final Logger LOG = LoggerFactory.getLogger(RedisExtension.class);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);
    private static final String NODE = "node";
    private static final String SERVERS = "servers";

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RedisNode.class || type == RedisServers.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        ExtensionContext.Store store = classStore(extensionContext);
        if (parameterContext.getParameter().getType() == RedisServers.class) {
            return store.computeIfAbsent(SERVERS, key -> RedisServers.create(), RedisServers.class);
        }
        return store.computeIfAbsent(NODE, key -> Launcher.launch(RedisNodeConfig.defaults()), RedisNode.class);
    }

    /** A run whose chosen server is missing skips the class here, when told to, not in resolving a node. */
    @Override
    public void beforeAll(ExtensionContext context) {
        RedisBinary.chosen();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        RedisBinary.chosen();
        RedisNode node = classStore(context).get(NODE, RedisNode.class);
        if (node != null) {
            reset(node);
        }
    }

    private static void reset(RedisNode node) {
        try {
            if (node.isRunning()) {
                node.resume();
            } else {
                node.restart();
            }
            node.call("CLIENT", "UNPAUSE");
            node.call("FLUSHALL");
            node.call("SCRIPT", "FLUSH");
            node.call("FUNCTION", "FLUSH");
        } catch (RuntimeException e) {
            LOG.info("Restarting shared {} because resetting it failed: {}", node, e.toString());
            node.restart();
        }
    }

    /** The store of the outermost test class, so nested classes share its servers. */
    private static ExtensionContext.Store classStore(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getParent().flatMap(ExtensionContext::getTestClass).isPresent()) {
            classContext = classContext.getParent().orElseThrow();
        }
        return classContext.getStore(NAMESPACE);
    }
}
