package dev.distlock.sample.web;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;

import dev.distlock.sample.sale.SaleProperties;
import dev.distlock.sample.sale.StockStore;
import dev.distlock.sample.sale.StockStore.StockLevel;

/** A plain HTML status page at {@code /}: stock, recent lock activity, and how to run the demo. */
@RestController
public class StatusController {

    private final StockStore stock;

    private final SaleProperties sale;

    private final LockActivity activity;

    public StatusController(StockStore stock, SaleProperties sale, LockActivity activity) {
        this.stock = stock;
        this.sale = sale;
        this.activity = activity;
    }

    @GetMapping(path = "/", produces = MediaType.TEXT_HTML_VALUE)
    public String status() {
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
        html.append("</table><h2>Recent lock activity</h2><table><tr><th>time</th><th>event</th><th>key</th>")
            .append("<th>name</th><th>detail</th></tr>");
        for (LockActivity.Event event : this.activity.recent()) {
            html.append("<tr><td>").append(event.at()).append("</td><td>").append(escape(event.what()))
                .append("</td><td>").append(escape(event.key())).append("</td><td>").append(escape(event.name()))
                .append("</td><td>").append(escape(event.detail())).append("</td></tr>");
        }
        html.append("</table><h2>Try it</h2><ul>")
            .append("<li>Buy under the lock: <code>curl -X POST localhost:PORT/sales/tshirt/purchase</code></li>")
            .append("<li>Buy without it: <code>curl -X POST localhost:PORT/sales/tshirt/purchase-unlocked</code></li>")
            .append("<li>Edit a page: <code>curl -X PUT -d 'hello' localhost:PORT/pages/home</code></li>")
            .append("<li>Run the demo (a bounded burst of buyers and editors, then a table): ")
            .append("<code>mvn -B -q -pl lock-sample-app -am spring-boot:run -Dspring-boot.run.profiles=demo</code>")
            .append("</li></ul></body></html>");
        return html.toString();
    }

    private static String escape(String text) {
        return HtmlUtils.htmlEscape(text);
    }
}
