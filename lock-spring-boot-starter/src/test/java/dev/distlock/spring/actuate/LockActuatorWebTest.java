package dev.distlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.json.JsonParser;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The {@code locks} endpoint and the {@code distlock} health contributor over HTTP, in a web application. */
@RedisTest
class LockActuatorWebTest {

    private final HttpClient http = HttpClient.newHttpClient();

    // Boot's own parser, not a Jackson: this test runs on Boot 3.5 (Jackson 2) and 4 (Jackson 3) alike.
    private final JsonParser json = JsonParserFactory.getJsonParser();

    @Test
    void theLocksEndpointIsNotExposedOverTheWebUnlessTheApplicationExposesIt(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(redis)) {
            assertThat(get(context, "/actuator/locks").statusCode()).isEqualTo(404);
            assertThat(get(context, "/actuator/health").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void theLocksEndpointListsAHeldLockUntilItIsReleased(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(redis, "management.endpoints.web.exposure.include=locks")) {
            LockService locks = context.getBean(LockService.class);
            Instant before = Instant.now();
            LockHandle lock = locks.acquire("stock:42", LockOptions.defaults().withName("Stock.reserve"));

            HttpResponse<String> response = get(context, "/actuator/locks");
            assertThat(response.statusCode()).isEqualTo(200);
            List<?> held = (List<?>) this.json.parseMap(response.body()).get("locks");
            assertThat(held).hasSize(1);
            @SuppressWarnings("unchecked")
            Map<String, Object> entry = (Map<String, Object>) held.get(0);
            assertThat(entry.keySet()).containsExactlyInAnyOrder("key", "name", "mode", "since", "leaseDeadline",
                    "fencingToken", "owner", "holdCount", "watchdog");
            assertThat(entry.get("key")).isEqualTo("stock:42");
            assertThat(entry.get("name")).isEqualTo("Stock.reserve");
            assertThat(entry.get("mode")).isEqualTo("EXCLUSIVE");
            assertThat(Instant.parse((String) entry.get("since"))).isAfterOrEqualTo(before.minusSeconds(1));
            assertThat(Instant.parse((String) entry.get("leaseDeadline"))).isAfter(before);
            assertThat(((Number) entry.get("fencingToken")).longValue()).isEqualTo(lock.fencingToken());
            assertThat(entry.get("owner")).isEqualTo("thread " + Thread.currentThread().getName());
            assertThat(((Number) entry.get("holdCount")).intValue()).isEqualTo(1);
            assertThat(entry.get("watchdog")).isEqualTo(true);
            assertThat(response.body()).doesNotContain(lock.ownerToken());

            lock.release();
            Map<String, Object> after = this.json.parseMap(get(context, "/actuator/locks").body());
            assertThat((List<?>) after.get("locks")).isEmpty();
        }
    }

    /**
     * {@code /actuator/locks/{key}} reads one key from Redis: a lock of this application (named by
     * spring.application.name) and one held by another instance, each with its holder's instance; a free key is 404.
     */
    @Test
    void theLockEndpointShowsWhoHoldsOneKeyAcrossInstances(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(redis, "management.endpoints.web.exposure.include=locks",
                "spring.application.name=booking");
                RedisLockService warehouse = RedisLockService.builder(context.getBean(StringRedisTemplate.class))
                    .applicationName("warehouse")
                    .restartGrace(Duration.ZERO)
                    .build()) {
            LockHandle own = context.getBean(LockService.class).acquire("stock:42");
            LockHandle other = warehouse.acquire("orders/7");

            Map<String, Object> holder = onlyHolder(get(context, "/actuator/locks/stock:42"), "stock:42");
            assertThat(holder.keySet()).containsExactlyInAnyOrder("instance", "owner", "since", "leaseLeftMillis",
                    "fencingToken", "holdCount", "permits");
            assertThat(instance(holder).get("application")).isEqualTo("booking");
            assertThat(((Number) instance(holder).get("pid")).longValue()).isEqualTo(ProcessHandle.current().pid());
            assertThat(holder.get("owner")).isEqualTo("thread " + Thread.currentThread().getName());
            assertThat(Instant.parse((String) holder.get("since"))).isBefore(Instant.now().plusSeconds(1));
            assertThat(((Number) holder.get("leaseLeftMillis")).longValue()).isPositive();
            assertThat(((Number) holder.get("fencingToken")).longValue()).isEqualTo(own.fencingToken());

            Map<String, Object> elsewhere = onlyHolder(get(context, "/actuator/locks/orders/7"), "orders/7");
            assertThat(instance(elsewhere).get("application")).isEqualTo("warehouse");
            assertThat(instance(elsewhere).get("id")).isEqualTo(warehouse.instanceId());
            assertThat(((Number) elsewhere.get("fencingToken")).longValue()).isEqualTo(other.fencingToken());

            own.release();
            other.release();
            assertThat(get(context, "/actuator/locks/stock:42").statusCode()).isEqualTo(404);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> onlyHolder(HttpResponse<String> response, String key) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).doesNotContain("ownerToken");
        List<?> locks = (List<?>) this.json.parseMap(response.body()).get("locks");
        assertThat(locks).hasSize(1);
        Map<String, Object> lock = (Map<String, Object>) locks.get(0);
        assertThat(lock.get("key")).isEqualTo(key);
        assertThat(lock.get("mode")).isEqualTo("EXCLUSIVE");
        List<?> holders = (List<?>) lock.get("holders");
        assertThat(holders).hasSize(1);
        return (Map<String, Object>) holders.get(0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> instance(Map<String, Object> holder) {
        return (Map<String, Object>) holder.get("instance");
    }

    @Test
    void healthGoesDownWhileRedisIsStoppedAndUpWhenItReturns(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(redis, "management.endpoint.health.show-details=always")) {
            Map<String, Object> up = this.json.parseMap(get(context, "/actuator/health/distlock").body());
            assertThat(up.get("status")).isEqualTo("UP");
            assertThat(details(up).get("redis")).isEqualTo("reachable");
            assertThat(((Number) details(up).get("overdueRenewals")).intValue()).isZero();

            redis.stop();
            Await.until(Duration.ofSeconds(20), () -> health(context).statusCode() == 503,
                    "health is DOWN while Redis is stopped");
            Map<String, Object> down = this.json.parseMap(health(context).body());
            assertThat(down.get("status")).isEqualTo("DOWN");
            assertThat(details(down).get("redis")).isEqualTo("unreachable");

            redis.restart();
            Await.until(Duration.ofSeconds(40), () -> health(context).statusCode() == 200,
                    "health is UP again once Redis is back");
        }
    }

    private ConfigurableApplicationContext start(RedisNode redis, String... properties) {
        List<String> all = new ArrayList<>(List.of("server.address=127.0.0.1", "server.port=0",
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                "spring.data.redis.timeout=500ms"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(WebApplication.class).properties(all.toArray(String[]::new)).run();
    }

    private HttpResponse<String> health(ConfigurableApplicationContext context) {
        try {
            return get(context, "/actuator/health/distlock");
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private HttpResponse<String> get(ConfigurableApplicationContext context, String path)
            throws IOException, InterruptedException {
        int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(), BodyHandlers.ofString());
    }

    private static Map<?, ?> details(Map<String, Object> health) {
        return (Map<?, ?>) health.get("details");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class WebApplication {
    }
}
