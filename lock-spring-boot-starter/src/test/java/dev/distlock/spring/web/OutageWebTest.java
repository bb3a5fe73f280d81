package dev.distlock.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.spring.DistributedLock;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * Outages as a web application's user meets them (issue 47 points 2 and 3), through a {@code @DistributedLock} with
 * a 5 s wait: during the restart grace a request whose wait ends before the grace is refused at once with the
 * grace's 503 and Retry-After; while Redis is down, requests get 503, never the 409 of a held lock, even after a
 * release on this instance failed with waiters queued behind it.
 */
@RedisTest
class OutageWebTest {

    private static final HttpClient http = HttpClient.newHttpClient();

    /** The lock call timeout (distlock.redis.call-timeout), half its default so that the outage ends sooner. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

    /** The method's wait, as in {@link Booking#book}. */
    private static final Duration WAIT = Duration.ofSeconds(5);

    /** Generous room for a loaded 2-core machine. */
    private static final Duration SLACK = Duration.ofMillis(1500);

    @Test
    void aRequestWhoseWaitEndsWithinTheGraceGetsTheGraces503AtOnce(RedisServers servers) throws Exception {
        RedisNode redis = servers.start();
        try (ConfigurableApplicationContext context = start(redis, "--distlock.safety.restart-grace=1h")) {
            long start = System.nanoTime();
            HttpResponse<String> response = send(context, "/book?seat=1").get(30, TimeUnit.SECONDS);
            Duration answered = Duration.ofNanos(System.nanoTime() - start);
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).contains("\"title\":\"Redis restart grace\"");
            assertThat(Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow()))
                .as("Retry-After: the grace left").isGreaterThan(WAIT.toSeconds());
            assertThat(answered).as("at once, not after the 5 s wait").isLessThan(CALL_TIMEOUT);
        }
    }

    @Test
    void whileRedisIsDownRequestsGet503NotHeldEvenAfterAReleaseFailed(RedisServers servers) throws Exception {
        RedisNode redis = servers.start();
        try (ConfigurableApplicationContext context = start(redis, "--distlock.safety.restart-grace=0s")) {
            assertThat(send(context, "/book?seat=7").get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            LockHandle held = context.getBean(LockService.class).acquire("seat:7");
            List<CompletableFuture<HttpResponse<String>>> queued = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                queued.add(send(context, "/book?seat=7"));
            }
            Await.until(Duration.ofSeconds(10), () -> redis.call("PUBSUB", "CHANNELS", "*").contains("seat:7"),
                    "a request waits for the release");
            redis.kill();
            assertThatThrownBy(held::release).isInstanceOf(LockUnavailableException.class);
            long failed = System.nanoTime();

            for (CompletableFuture<HttpResponse<String>> request : queued) {
                HttpResponse<String> response = request.get(30, TimeUnit.SECONDS);
                assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
                assertThat(response.body()).contains("\"title\":\"Lock service unavailable\"");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - failed)).as("the queued requests answered promptly")
                .isLessThan(CALL_TIMEOUT.plus(SLACK));
            for (int i = 0; i < 2; i++) {
                long start = System.nanoTime();
                HttpResponse<String> later = send(context, "/book?seat=7").get(30, TimeUnit.SECONDS);
                assertThat(later.statusCode()).as(later.body()).isEqualTo(503);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("within the lock call timeout")
                    .isLessThan(CALL_TIMEOUT.plus(SLACK));
            }

            redis.restart();
            Await.until(Duration.ofSeconds(30),
                    () -> send(context, "/book?seat=7").join().statusCode() == 200, "booked again once Redis is back");
        }
    }

    private static ConfigurableApplicationContext start(RedisNode redis, String... arguments) {
        return new SpringApplicationBuilder(BookingApplication.class).web(WebApplicationType.SERVLET)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.port(), "distlock.redis.call-timeout=" + CALL_TIMEOUT.toMillis()
                            + "ms")
            .run(arguments);
    }

    private static CompletableFuture<HttpResponse<String>> send(ConfigurableApplicationContext context,
            String path) {
        int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .build(), BodyHandlers.ofString());
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(BookingController.class)
    static class BookingApplication {

        @Bean
        Booking booking() {
            return new Booking();
        }

        /**
         * Lettuce's resources with a reconnect every 100 ms instead of its backoff, which grows during the outage to
         * seconds between attempts: the test ends once Redis is back, not at the next attempt after that. Nothing
         * asserted depends on when the client reconnects (Boot uses a ClientResources bean of the application's).
         */
        @Bean(destroyMethod = "shutdown")
        ClientResources clientResources() {
            return ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(100))).build();
        }
    }

    @RestController
    static class BookingController {

        private final Booking booking;

        BookingController(Booking booking) {
            this.booking = booking;
        }

        @GetMapping("/book")
        String book(@RequestParam String seat) {
            return this.booking.book(seat);
        }
    }

    static class Booking {

        @DistributedLock(key = "'seat:' + #seat", waitTime = "5s")
        public String book(String seat) {
            return "booked " + seat;
        }
    }
}
