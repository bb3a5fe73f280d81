package dev.distlock.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import dev.distlock.reactor.ReactiveLocks;
import dev.distlock.spring.DistributedLock;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A WebFlux endpoint whose {@link DistributedLock} method returns a Mono, under concurrent requests: the lock is held
 * while each request's Mono runs (from subscription to completion), so no two overlap, and no request thread blocks.
 */
@RedisTest
class LockedMonoEndpointTest {

    private static final HttpClient http = HttpClient.newHttpClient();

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void concurrentRequestsToOneLockedMonoEndpointNeverOverlap(RedisNode redis) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.REACTIVE)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.port())
            .run()) {
            int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            int requests = 80;
            for (int i = 0; i < requests; i++) {
                responses.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/count/" + (i % 2 == 0 ? "even" : "odd"))).timeout(Duration.ofSeconds(60)).build(),
                        BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> response : responses) {
                HttpResponse<String> answer = response.orTimeout(90, TimeUnit.SECONDS).join();
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
                assertThat(answer.body()).startsWith("counted with fencing token ");
            }
            assertThat(Counter.overlaps).as("requests inside the locked work at once").hasValue(0);
            assertThat(Counter.count).hasValue(requests);
            assertThat(redis.lockField("distlock:{counter}:lock", "owner")).isNull();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import({ CounterController.class, Counter.class })
    static class Application {
    }

    @RestController
    static class CounterController {

        private final Counter counter;

        CounterController(Counter counter) {
            this.counter = counter;
        }

        @GetMapping("/count/{caller}")
        Mono<String> count(@PathVariable String caller) {
            return this.counter.increment();
        }
    }

    static class Counter { // static state: the test reads it past the bean's proxy

        static final AtomicInteger inside = new AtomicInteger();

        static final AtomicInteger overlaps = new AtomicInteger();

        static final AtomicInteger count = new AtomicInteger();

        /** A read, a pause and a write: two of them at once would overlap, which the lock must prevent. */
        @DistributedLock(key = "'counter'", waitTime = "60s")
        public Mono<String> increment() {
            return Mono.deferContextual(context -> {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                int read = count.get();
                long fencingToken = ReactiveLocks.current(context).fencingToken();
                return Mono.delay(Duration.ofMillis(2)).map(tick -> {
                    count.set(read + 1);
                    inside.decrementAndGet();
                    return "counted with fencing token " + fencingToken;
                });
            });
        }
    }
}
