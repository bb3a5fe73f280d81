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

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The {@code locks} endpoint and the {@code distlock} health contributor over HTTP, in a web application. */
@RedisTest
class LockActuatorWebTest {

    private final HttpClient http = HttpClient.newHttpClient();

    private final JsonMapper json = JsonMapper.builder().build();

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
            JsonNode held = this.json.readTree(response.body()).get("locks");
            assertThat(held.size()).isEqualTo(1);
            JsonNode entry = held.get(0);
            assertThat(names(entry)).containsExactlyInAnyOrder("key", "name", "mode", "since", "leaseDeadline",
                    "fencingToken", "owner", "holdCount", "watchdog");
            assertThat(entry.get("key").asString()).isEqualTo("stock:42");
            assertThat(entry.get("name").asString()).isEqualTo("Stock.reserve");
            assertThat(entry.get("mode").asString()).isEqualTo("EXCLUSIVE");
            assertThat(Instant.parse(entry.get("since").asString())).isAfterOrEqualTo(before.minusSeconds(1));
            assertThat(Instant.parse(entry.get("leaseDeadline").asString())).isAfter(before);
            assertThat(entry.get("fencingToken").asLong()).isEqualTo(lock.fencingToken());
            assertThat(entry.get("owner").asString()).isEqualTo("thread " + Thread.currentThread().getName());
            assertThat(entry.get("holdCount").asInt()).isEqualTo(1);
            assertThat(entry.get("watchdog").asBoolean()).isTrue();
            assertThat(response.body()).doesNotContain(lock.ownerToken());

            lock.release();
            JsonNode after = this.json.readTree(get(context, "/actuator/locks").body());
            assertThat(after.get("locks").size()).isZero();
        }
    }

    @Test
    void healthGoesDownWhileRedisIsStoppedAndUpWhenItReturns(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(redis, "management.endpoint.health.show-details=always")) {
            JsonNode up = this.json.readTree(get(context, "/actuator/health/distlock").body());
            assertThat(up.get("status").asString()).isEqualTo("UP");
            assertThat(up.get("details").get("redis").asString()).isEqualTo("reachable");
            assertThat(up.get("details").get("overdueRenewals").asInt()).isZero();

            redis.stop();
            Await.until(Duration.ofSeconds(20), () -> health(context).statusCode() == 503,
                    "health is DOWN while Redis is stopped");
            JsonNode down = this.json.readTree(health(context).body());
            assertThat(down.get("status").asString()).isEqualTo("DOWN");
            assertThat(down.get("details").get("redis").asString()).isEqualTo("unreachable");

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
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(), BodyHandlers.ofString());
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class WebApplication {
    }
}
