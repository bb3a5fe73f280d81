package dev.distlock.spring.web;

import static dev.distlock.spring.web.LockProblemDetailsWebTest.closedPort;
import static dev.distlock.spring.web.LockProblemDetailsWebTest.get;
import static dev.distlock.spring.web.LockProblemDetailsWebTest.start;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The same problem details in a WebFlux application (Netty), from the same advice. */
@RedisTest
class LockProblemDetailsWebFluxTest {

    @Test
    void aLockHeldPastTheWaitLimitIs409WithRetryAfter(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.REACTIVE, redis.port())) {
            try (LockHandle other = context.getBean(LockService.class).acquire("stock:42")) {
                HttpResponse<String> response = get(context, "/stock/42");
                assertThat(response.statusCode()).isEqualTo(409);
                assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(response.body()).contains("\"title\":\"Lock held\"");
            }
            assertThat(get(context, "/stock/42").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aLostLeaseIs409(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.REACTIVE, redis.port())) {
            HttpResponse<String> response = get(context, "/slow/7");
            assertThat(response.statusCode()).isEqualTo(409);
            assertThat(response.body()).contains("\"title\":\"Lock lease lost\"");
        }
    }

    @Test
    void redisUnreachableIs503() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.REACTIVE, closedPort(),
                "distlock.verify-access-on-startup=false", "spring.data.redis.timeout=500ms")) {
            HttpResponse<String> response = get(context, "/stock/42");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        }
    }
}
