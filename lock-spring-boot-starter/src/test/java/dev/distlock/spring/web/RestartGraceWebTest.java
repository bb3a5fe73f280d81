package dev.distlock.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.distlock.spring.DistributedLock;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * The restart grace as a web application's user meets it: a request refused by a Redis younger than the grace gets
 * the grace's own 503 (when Redis restarted, when new locks resume, Retry-After the time left), the log has one WARN
 * when the grace is first met and one INFO when locks are granted again, and the health details show the time left
 * while the status stays UP. A lock key from a request that the lock service refuses is a 400 naming the rule.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class RestartGraceWebTest {

    private static final HttpClient http = HttpClient.newHttpClient();

    private static final Pattern RESUMES_IN = Pattern.compile("new locks resume in (\\d+) s\\.");

    @Test
    void aRequestDuringTheGraceGetsTheGracesProblemDetailWithTheTimeLeft(RedisServers servers, CapturedOutput output)
            throws Exception {
        RedisNode redis = servers.start();
        try (ConfigurableApplicationContext context = start(redis, "--distlock.safety.restart-grace=1h")) {
            HttpResponse<String> response = get(context, "/reserve?sku=42");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).contains("\"title\":\"Redis restart grace\"")
                .containsPattern("Redis restarted [0-9] s ago; new locks resume in 3[56][0-9]{2} s\\.")
                .doesNotContain("sku");
            Matcher left = RESUMES_IN.matcher(response.body());
            assertThat(left.find()).isTrue();
            assertThat(response.headers().firstValue("Retry-After")).hasValue(left.group(1));

            HttpResponse<String> health = get(context, "/actuator/health/distlock");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"status\":\"UP\"")
                .contains("\"restartGrace\":{\"resumesIn\":\"")
                .containsPattern("new locks resume in 3[56][0-9]{2} s\\.");

            assertThat(get(context, "/reserve?sku=43").statusCode()).isEqualTo(503);
            assertThat(output.getOut().split("distlock grants no new lock while Redis is younger", -1)).hasSize(2);
            assertThat(output).contains("WARN").contains("distlock.safety.restart-grace (3600 s)");
        }
    }

    @Test
    void anInfoSaysWhenTheGraceIsOver(RedisServers servers, CapturedOutput output) throws Exception {
        RedisNode redis = servers.start();
        // 2 s: Redis refuses until it is 3 s old, time enough for the client to reconnect after the restart below
        // and meet the grace (the WARN asserted); each wait below lasts until then
        try (ConfigurableApplicationContext context = start(redis, "--distlock.safety.restart-grace=2s")) {
            Await.until(Duration.ofSeconds(15), () -> get(context, "/reserve?sku=42").statusCode() == 200,
                    "locks are granted once Redis is older than the grace");
            redis.restart();
            Await.until(Duration.ofSeconds(20), () -> get(context, "/reserve?sku=42").statusCode() == 200,
                    "locks are granted again once the restarted Redis is older than the grace");
            assertThat(output).contains("distlock grants no new lock while Redis is younger")
                .contains("Redis restart grace over: distlock grants new locks again.");
            assertThat(get(context, "/actuator/health/distlock").body()).doesNotContain("restartGrace");
        }
    }

    @Test
    void aKeyTheServiceRefusesIs400NamingTheRuleWithoutTheKey(RedisNode redis) throws Exception {
        try (ConfigurableApplicationContext context = start(redis)) {
            HttpResponse<String> newline = get(context, "/reserve?sku=a%0Asecret");
            assertThat(newline.statusCode()).isEqualTo(400);
            assertThat(newline.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(newline.body()).contains("\"title\":\"Invalid lock key\"")
                .contains("a lock key must not contain control characters such as newlines")
                .doesNotContain("secret");
            HttpResponse<String> braces = get(context, "/reserve?sku=%7Bsecret%7D");
            assertThat(braces.statusCode()).isEqualTo(400);
            assertThat(braces.body()).contains("a lock key must not contain braces").doesNotContain("secret");
            HttpResponse<String> tooLong = get(context, "/reserve?sku=" + "s".repeat(1100));
            assertThat(tooLong.statusCode()).isEqualTo(400);
            assertThat(tooLong.body()).contains("a lock key must be at most 1024 characters")
                .doesNotContain("sss");
            assertThat(get(context, "/reserve?sku=42").statusCode()).isEqualTo(200);
        }
    }

    private static ConfigurableApplicationContext start(RedisNode redis, String... arguments) {
        return new SpringApplicationBuilder(GraceApplication.class).web(WebApplicationType.SERVLET)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.port(), "management.endpoint.health.show-details=always")
            .run(arguments);
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext context, String path) {
        int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20))
                .build(), BodyHandlers.ofString());
        }
        catch (IOException | InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(ReserveController.class)
    static class GraceApplication {

        @Bean
        Reservations reservations() {
            return new Reservations();
        }
    }

    @RestController
    static class ReserveController {

        private final Reservations reservations;

        ReserveController(Reservations reservations) {
            this.reservations = reservations;
        }

        @GetMapping("/reserve")
        String reserve(@RequestParam String sku) {
            return this.reservations.reserve(sku);
        }
    }

    static class Reservations {

        @DistributedLock(key = "#sku", waitTime = "0")
        public String reserve(String sku) {
            return "reserved";
        }
    }
}
