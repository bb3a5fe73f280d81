package dev.distlock.sample.web;

import java.util.Comparator;
import java.util.List;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;
import org.springframework.web.util.HtmlUtils;

import dev.distlock.HeldLock;
import dev.distlock.redis.RedisLockService;
import dev.distlock.sample.sale.SaleProperties;
import dev.distlock.sample.sale.StockStore.StockLevel;
import dev.distlock.sample.sale.StockStore;
import dev.distlock.spring.micrometer.LockMetrics;

/**
 * A plain HTML status page at {@code /}: stock, the locks this instance holds, lock counters, recent lock activity,
 * and how to run the demo.
 */
@RestController
public class StatusController {

    private final StockStore stock;

    private final SaleProperties sale;

    private final LockActivity activity;

    private final RedisLockService locks;

    private final MeterRegistry meters;

    public StatusController(StockStore stock, SaleProperties sale, LockActivity activity, RedisLockService locks,
            MeterRegistry meters) {
        this.stock = stock;
        this.sale = sale;
        this.activity = activity;
        this.locks = locks;
        this.meters = meters;
    }

    @GetMapping(path = "/", produces = MediaType.TEXT_HTML_VALUE)
    public String status() {
        // The address this page was reached at, so the commands below can be pasted as they are.
        String base = escape(ServletUriComponentsBuilder.fromCurrentContextPath().build().toUriString());
        StringBuilder html = new StringBuilder(4096);
        html.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>distlock sample</title>")
            .append("<meta http-equiv=\"refresh\" content=\"5\">")
            .append("<style>body{font-family:sans-serif;margin:2em;max-width:60em}")
            .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}")
            .append("code{background:#f4f4f4;padding:.1em .3em}</style></head><body>")
            .append("<h1>distlock sample: flash sale and wiki</h1>");
        html.append("<h2>Stock</h2><table><tr><th>SKU</th><th>initial</th><th>left</th><th>sold</th>")
            .append("<th>oversold</th></tr>");
        for (String sku : this.sale.getStock().keySet()) {
            StockLevel level = this.stock.level(sku);
            html.append("<tr><td>").append(escape(sku)).append("</td><td>").append(level.initial())
                .append("</td><td>").append(level.left()).append("</td><td>").append(level.sold())
                .append("</td><td>").append(level.oversold()).append("</td></tr>");
        }
        html.append("</table>");
        heldLocks(html);
        counters(html);
        html.append("<h2>Recent lock activity</h2><table><tr><th>time</th><th>event</th><th>key</th>")
            .append("<th>name</th><th>detail</th></tr>");
        for (LockActivity.Event event : this.activity.recent()) {
            html.append("<tr><td>").append(event.at()).append("</td><td>").append(escape(event.what()))
                .append("</td><td>").append(escape(event.key())).append("</td><td>").append(escape(event.name()))
                .append("</td><td>").append(escape(event.detail())).append("</td></tr>");
        }
        html.append("</table><h2>Try it</h2><ul>")
            .append("<li>Locks held, as JSON: <a href=\"/actuator/locks\">/actuator/locks</a>; health: ")
            .append("<a href=\"/actuator/health/distlock\">/actuator/health/distlock</a>; metrics: ")
            .append(metricsLink())
            .append("</li><li>Buy under the lock: <code>curl -X POST ").append(base).append("/sales/tshirt/purchase")
            .append("</code></li><li>Buy without it: <code>curl -X POST ").append(base)
            .append("/sales/tshirt/purchase-unlocked</code></li>")
            .append("<li>Edit a page: <code>curl -X PUT -H 'Content-Type: text/plain' -d 'hello' ").append(base)
            .append("/pages/home</code></li>")
            .append("<li>Run the demo (a bounded burst of buyers and editors, then a table): ")
            .append("<code>mvn -B -q -pl lock-sample-app -am spring-boot:run -Dspring-boot.run.profiles=demo</code>")
            .append("</li></ul></body></html>");
        return html.toString();
    }

    /** Micrometer registers the meter at the first lock; until then the link would answer 404. */
    private String metricsLink() {
        if (this.meters.find(LockMetrics.ACQUIRE_ATTEMPTS).counter() == null) {
            return "distlock.acquire.attempts (appears after the first lock; buy or edit below)";
        }
        return "<a href=\"/actuator/metrics/distlock.acquire.attempts\">distlock.acquire.attempts</a>";
    }

    private void heldLocks(StringBuilder html) {
        List<HeldLock> held = this.locks.heldLocks();
        html.append("<h2>Held locks (this instance)</h2>");
        if (held.isEmpty()) {
            html.append("<p>None right now.</p>");
            return;
        }
        html.append("<table><tr><th>key</th><th>name</th><th>mode</th><th>since</th><th>lease deadline</th>")
            .append("<th>fencing token</th><th>owner</th></tr>");
        for (HeldLock lock : held) {
            html.append("<tr><td>").append(escape(lock.key())).append("</td><td>").append(escape(lock.name()))
                .append("</td><td>").append(lock.mode()).append("</td><td>").append(lock.since())
                .append("</td><td>").append(lock.leaseDeadline()).append("</td><td>").append(lock.fencingToken())
                .append("</td><td>").append(escape(lock.owner())).append("</td></tr>");
        }
        html.append("</table>");
    }

    private void counters(StringBuilder html) {
        html.append("<h2>Lock metrics</h2><table><tr><th>meter</th><th>name</th><th>outcome</th><th>value</th></tr>");
        List<Counter> counters = this.meters.find(LockMetrics.ACQUIRE_ATTEMPTS).counters().stream()
            .sorted(Comparator.comparing((Counter counter) -> String.valueOf(counter.getId().getTag("name")))
                .thenComparing(counter -> String.valueOf(counter.getId().getTag("outcome"))))
            .toList();
        for (Counter counter : counters) {
            counterRow(html, counter);
        }
        for (Counter counter : this.meters.find(LockMetrics.LEASES_LOST).counters()) {
            counterRow(html, counter);
        }
        for (Counter counter : this.meters.find(LockMetrics.RENEWALS).counters()) {
            counterRow(html, counter);
        }
        Gauge held = this.meters.find(LockMetrics.LOCKS_HELD).gauge();
        if (held != null) {
            html.append("<tr><td>").append(LockMetrics.LOCKS_HELD).append("</td><td></td><td></td><td>")
                .append((long) held.value()).append("</td></tr>");
        }
        html.append("</table>");
    }

    private static void counterRow(StringBuilder html, Counter counter) {
        String name = counter.getId().getTag("name");
        String outcome = counter.getId().getTag("outcome");
        html.append("<tr><td>").append(counter.getId().getName()).append("</td><td>")
            .append(escape((name != null) ? name : "")).append("</td><td>")
            .append(escape((outcome != null) ? outcome : "")).append("</td><td>").append((long) counter.count())
            .append("</td></tr>");
    }

    private static String escape(String text) {
        return HtmlUtils.htmlEscape(text);
    }
}
