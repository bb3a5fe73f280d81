package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import redis.embedded.RedisServer;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.sample.demo.Demo.SaleResult;
import dev.distlock.sample.demo.Demo.WikiResult;
import dev.distlock.sample.demo.Demo;
import dev.distlock.sample.demo.DemoProperties;
import dev.distlock.sample.sale.StockStore;

/** The app on a random port with its embedded Redis, running a reduced demo over HTTP. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "sample.demo.stock=20", "sample.demo.purchases=60", "sample.demo.buyers=8",
                "sample.demo.editors=3", "sample.demo.edits-per-editor=5" })
class SampleApplicationTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private DemoProperties settings;

    @Autowired
    private StockStore stock;

    @Autowired
    private ApplicationContext context;

    @Autowired
    private LockService lockService;

    @Autowired
    private MeterRegistry meters;

    private Demo demo() {
        return new Demo(URI.create("http://127.0.0.1:" + this.port), this.settings);
    }

    @Test
    void startsItsOwnRedisWhenNoneIsConfigured() {
        assertThat(this.context.getBeansOfType(RedisServer.class)).hasSize(1);
    }

    @Test
    void theLockedFlashSaleSellsExactlyTheStock() {
        SaleResult sale = demo().flashSale(true);
        assertThat(sale.oversold()).isZero();
        assertThat(sale.sold()).isEqualTo(20);
        assertThat(sale.stockLeft()).isZero();
    }

    @Test
    void theLockedWikiLosesNoEdit() {
        WikiResult wiki = demo().wiki(true, "it");
        assertThat(wiki.lost()).isZero();
        assertThat(wiki.kept()).isEqualTo(wiki.sent()).isEqualTo(15);
    }

    @Test
    void aWriterWhoseLeaseRanOutIsRejectedByTheFencingCheck() throws Exception {
        assertThat(demo().staleWriteRejected("it-stale")).isEqualTo(1);
        String page = get("/pages/it-stale-1");
        assertThat(page).contains("fast").doesNotContain("slow");
    }

    @Test
    void theSameSaveRepeatedWithinTheWindowIsAppliedOnce() {
        assertThat(demo().duplicateSavesApplied("it-dup")).isEqualTo(1);
    }

    @Test
    void badPurchasesGetA4xxWithAMessageAndLeaveTheStockAlone() throws Exception {
        int before = this.stock.level("mug").left();
        assertThat(send("POST", "/sales/no-such-sku/purchase", null)).satisfies(response -> {
            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(response.body()).contains("Unknown SKU 'no-such-sku'");
        });
        for (String quantity : new String[] { "0", "-3", "11" }) {
            HttpResponse<String> response = send("POST", "/sales/mug/purchase?quantity=" + quantity, null);
            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(response.body()).contains("quantity must be between 1 and 10");
        }
        assertThat(send("POST", "/sales/mug/purchase?quantity=abc", null).statusCode()).isEqualTo(400);
        assertThat(this.stock.level("mug").left()).isEqualTo(before);
    }

    @Test
    void badEditsGetA4xxWithAMessage() throws Exception {
        HttpResponse<String> oversized = send("PUT", "/pages/home", "x".repeat(2001));
        assertThat(oversized.statusCode()).isEqualTo(413);
        assertThat(oversized.body()).contains("at most 2000 characters");
        assertThat(send("PUT", "/pages/home", "   ").statusCode()).isEqualTo(400);
        assertThat(send("PUT", "/pages/bad%20id", "hello").statusCode()).isEqualTo(400);
        assertThat(get("/pages/home")).contains("\"edits\":[]");
    }

    @Test
    void theStatusPageShowsStockAndLockActivity() throws Exception {
        send("POST", "/sales/mug/purchase", null);
        String page = get("/");
        assertThat(page).contains("<h2>Stock</h2>", "tshirt", "mug", "Recent lock activity", "stock:mug");
    }

    @Test
    void theStatusPageCommandsWorkAsPrinted() throws Exception {
        String page = get("/");
        assertThat(page).doesNotContain("PORT")
            .contains("curl -X PUT -H 'Content-Type: text/plain' -d 'hello' http://127.0.0.1:" + this.port
                    + "/pages/home")
            .contains("curl -X POST http://127.0.0.1:" + this.port + "/sales/tshirt/purchase");
        HttpResponse<String> edit = send("PUT", "/pages/it-curl", "hello");
        assertThat(edit.statusCode()).isEqualTo(200);
        assertThat(edit.body()).contains("\"applied\":true");
    }

    @Test
    void aFormEncodedEditIsToldToSendPlainText() throws Exception {
        HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + this.port + "/pages/it-form"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .PUT(BodyPublishers.ofString("hello"))
            .build(), BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("Content-Type: text/plain");
    }

    @Test
    void theActuatorAndTheStatusPageShowHeldLocksHealthAndLockMetrics() throws Exception {
        assertThat(send("POST", "/sales/mug/purchase", null).statusCode()).isEqualTo(200);
        try (LockHandle lock = this.lockService.acquire("stock:it-held",
                LockOptions.defaults().withName("StatusTest.hold"))) {
            assertThat(get("/actuator/locks")).contains("\"key\":\"stock:it-held\"", "\"name\":\"StatusTest.hold\"",
                    "\"fencingToken\":" + lock.fencingToken());
            assertThat(get("/")).contains("Held locks", "stock:it-held", "StatusTest.hold", "Lock metrics",
                    "distlock.acquire.attempts", "SaleService.purchase");
        }
        assertThat(get("/actuator/locks")).doesNotContain("stock:it-held");
        assertThat(get("/actuator/health/distlock")).contains("\"status\":\"UP\"", "\"redis\":\"reachable\"");
        assertThat(get("/actuator/metrics/distlock.acquire.attempts")).contains("SaleService.purchase");
        for (Meter meter : this.meters.getMeters()) {
            for (Tag tag : meter.getId().getTags()) {
                assertThat(tag.getValue()).as("tag %s of %s", tag.getKey(), meter.getId().getName())
                    .doesNotContain("mug")
                    .doesNotContain("it-held");
            }
        }
    }

    private String get(String path) throws IOException, InterruptedException {
        return send("GET", path, null).body();
    }

    private HttpResponse<String> send(String method, String path, String body)
            throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "text/plain")
            .method(method, (body != null) ? BodyPublishers.ofString(body) : BodyPublishers.noBody())
            .build(), BodyHandlers.ofString());
    }
}
