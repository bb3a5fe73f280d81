package dev.distlock.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Lock failures reaching a controller answer with problem details, over HTTP in a Spring MVC application (and in a
 * WebFlux one, see {@link LockProblemDetailsWebFluxTest}): a held lock 409 with Retry-After, a lost lease 409, Redis
 * unreachable 503; an application's own handler wins, and the property turns the mapping off.
 */
@RedisTest
class LockProblemDetailsWebTest {

    private static final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aLockHeldPastTheWaitLimitIs409WithRetryAfter(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, redis.port(),
                "distlock.web.retry-after=2500ms")) {
            try (LockHandle other = context.getBean(LockService.class).acquire("stock:42")) {
                HttpResponse<String> response = get(context, "/stock/42");
                assertThat(response.statusCode()).isEqualTo(409);
                assertThat(response.headers().firstValue("Retry-After")).hasValue("3");
                assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(response.body()).contains("\"title\":\"Lock held\"").contains("\"status\":409")
                    .doesNotContain("stock:42");
            }
            assertThat(get(context, "/stock/42").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aLostLeaseIs409(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, redis.port())) {
            HttpResponse<String> response = get(context, "/slow/7");
            assertThat(response.statusCode()).isEqualTo(409);
            assertThat(response.body()).contains("\"title\":\"Lock lease lost\"");
        }
    }

    @Test
    void redisUnreachableIs503WithRetryAfter() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, closedPort(),
                "distlock.verify-access-on-startup=false", "spring.data.redis.timeout=500ms")) {
            HttpResponse<String> response = get(context, "/stock/42");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(response.body()).contains("\"title\":\"Lock service unavailable\"");
        }
    }

    @Test
    void theApplicationsOwnHandlerWins(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, redis.port(),
                OwnHandlerApplication.class)) {
            try (LockHandle other = context.getBean(LockService.class).acquire("stock:42")) {
                HttpResponse<String> response = get(context, "/stock/42");
                assertThat(response.statusCode()).isEqualTo(423);
                assertThat(response.body()).isEqualTo("busy");
            }
        }
    }

    @Test
    void thePropertyTurnsTheMappingOff(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, redis.port(),
                "distlock.web.problem-details=false")) {
            assertThat(context.getBeanNamesForType(LockProblemDetailsHandler.class)).isEmpty();
            try (LockHandle other = context.getBean(LockService.class).acquire("stock:42")) {
                assertThat(get(context, "/stock/42").statusCode()).isEqualTo(500);
            }
        }
    }

    static ConfigurableApplicationContext start(WebApplicationType type, int redisPort, String... properties) {
        return start(type, redisPort, WebApplication.class, properties);
    }

    static ConfigurableApplicationContext start(WebApplicationType type, int redisPort, Class<?> application,
            String... properties) {
        List<String> all = new ArrayList<>(List.of("server.address=127.0.0.1", "server.port=0",
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redisPort));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(application).web(type).properties(all.toArray(String[]::new)).run();
    }

    static HttpResponse<String> get(ConfigurableApplicationContext context, String path)
            throws IOException, InterruptedException {
        int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .build(), BodyHandlers.ofString());
    }

    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(StockController.class)
    static class WebApplication {

        @Bean
        Stock stock(StringRedisTemplate redis) {
            return new Stock(redis);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import({ WebApplication.class, BusyHandler.class })
    static class OwnHandlerApplication {
    }

    @RestControllerAdvice
    static class BusyHandler {

        @ExceptionHandler
        ResponseEntity<String> busy(LockTimeoutException ex) {
            return ResponseEntity.status(HttpStatus.LOCKED).body("busy");
        }
    }

    @RestController
    static class StockController {

        private final Stock stock;

        StockController(Stock stock) {
            this.stock = stock;
        }

        @GetMapping("/stock/{sku}")
        String reserve(@PathVariable String sku) {
            return this.stock.reserve(sku);
        }

        @GetMapping("/slow/{sku}")
        String slow(@PathVariable String sku) {
            return this.stock.outliveTheLease(sku);
        }
    }

    static class Stock {

        private final StringRedisTemplate redis;

        Stock(StringRedisTemplate redis) {
            this.redis = redis;
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = "0")
        public String reserve(String sku) {
            return "reserved " + sku;
        }

        /** Works until its 300 ms lease has run out in Redis: the release then reports the lease lost. */
        @DistributedLock(key = "'slow:' + #sku", leaseTime = "300ms")
        public String outliveTheLease(String sku) {
            Await.until(Duration.ofSeconds(5), () -> !this.redis.hasKey(LockContexts.lockHash("slow:" + sku)),
                    "the lease runs out in Redis");
            return "too late";
        }
    }
}
