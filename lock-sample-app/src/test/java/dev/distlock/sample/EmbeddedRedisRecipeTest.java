package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.slf4j.LoggerFactory;

import dev.distlock.test.Await;

/**
 * The embedded-Redis recipe of docs/testing.md ({@link EmbeddedRedisExampleTest}) ends quietly: run as JUnit runs it,
 * its application context, with the lock service and the Redis clients, is closed before Redis stops, so no Lettuce
 * client is left to log reconnect WARNs, and nothing logs a WARN or an ERROR.
 */
class EmbeddedRedisRecipeTest {

    @Test
    void theRecipeClosesItsClientsBeforeRedisStopsAndLogsNoWarning() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(log);
        try {
            Set<Thread> before = Thread.getAllStackTraces().keySet(); // other test classes' cached contexts' clients
            LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(EmbeddedRedisExampleTest.class))
                .build();
            Launcher launcher = LauncherFactory.create();
            SummaryGeneratingListener summary = new SummaryGeneratingListener();
            launcher.execute(request, summary);
            TestExecutionSummary result = summary.getSummary();
            assertThat(result.getFailures()).as("the recipe's own test passes")
                .extracting(failure -> String.valueOf(failure.getException()))
                .isEmpty();
            assertThat(result.getTestsSucceededCount()).isEqualTo(1);

            assertThat(EmbeddedRedisExampleTest.redis.isActive()).as("Redis stopped with the context").isFalse();
            // the recipe's clients are gone, so none can try to reconnect to the stopped Redis later
            Await.until(Duration.ofSeconds(10), () -> lettuceThreads().stream().allMatch(before::contains),
                    "the recipe's Lettuce event loops end with its context");
            List<String> warnings = log.list.stream().filter(line -> line.getLevel().isGreaterOrEqual(Level.WARN))
                .map(line -> line.getLoggerName() + ": " + line.getFormattedMessage()).toList();
            assertThat(warnings).as("WARN and ERROR lines of the recipe").isEmpty();
        }
        finally {
            root.detachAppender(log);
        }
    }

    private static List<Thread> lettuceThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().startsWith("lettuce-"))
            .toList();
    }
}
