package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

import dev.distlock.LockService;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * Redis refusing the credentials (a wrong password, none where one is required, an unknown user) stops startup with
 * Redis's words and the property to fix; the right credentials start. An unreachable Redis still starts (see
 * {@link LockServiceLifecycleTest}).
 */
@RedisTest
class RedisCredentialsStartupTest {

    private static RedisNode guarded;

    @BeforeAll
    static void start(RedisServers servers) {
        guarded = servers.start(RedisNodeConfig.defaults().requirePass("inventory-secret"));
    }

    @Test
    void theRightPasswordStarts() {
        LockContexts.runner(guarded)
            .withPropertyValues("spring.data.redis.password=inventory-secret")
            .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockService.class));
    }

    @Test
    void aWrongPasswordStopsStartupNamingTheProperty() {
        LockContexts.runner(guarded)
            .withPropertyValues("spring.data.redis.password=wrong")
            .run(refused("WRONGPASS"));
    }

    @Test
    void noPasswordWhereOneIsRequiredStopsStartupNamingTheProperty() {
        LockContexts.runner(guarded).run(refused("NOAUTH"));
    }

    @Test
    void anUnknownUserStopsStartupNamingTheProperty() {
        LockContexts.runner(guarded)
            .withPropertyValues("spring.data.redis.username=nobody", "spring.data.redis.password=inventory-secret")
            .run(refused("WRONGPASS"));
    }

    private static ContextConsumer<AssertableApplicationContext> refused(String serverWord) {
        return context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isNotNull();
            RedisCredentialsException refusal = find(context.getStartupFailure());
            assertThat(refusal).as("a RedisCredentialsException in %s", context.getStartupFailure()).isNotNull();
            assertThat(refusal.getMessage()).contains(serverWord).contains("spring.data.redis.password")
                .contains("spring.data.redis.username");
            FailureAnalysis analysis = new RedisCredentialsFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains(serverWord);
            assertThat(analysis.getAction()).startsWith("Fix spring.data.redis.password");
        };
    }

    private static RedisCredentialsException find(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisCredentialsException refusal) {
                return refusal;
            }
        }
        return null;
    }
}
