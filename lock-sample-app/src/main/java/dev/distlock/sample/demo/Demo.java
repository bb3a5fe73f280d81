package dev.distlock.sample.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A bounded burst of concurrent buyers and editors sent over HTTP to a running sample app, with and without the lock.
 * Every loop is bounded in count, and every request in time.
 */
public final class Demo {

    private static final Log logger = LogFactory.getLog(Demo.class);

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private static final String SKU = "tshirt";

    private final URI base;

    private final DemoProperties settings;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public Demo(URI base, DemoProperties settings) {
        this.base = base;
        this.settings = settings;
    }

    /** Runs every scenario and returns what happened. */
    public Report run() {
        String run = Long.toString(System.currentTimeMillis(), 36);
        return new Report(flashSale(true), flashSale(false), wiki(true, "demo-" + run), wiki(false, "demo-" + run),
                staleWriteRejected("stale-" + run), duplicateSavesApplied("dup-" + run));
    }

    /** Restocks, then sends the purchases from {@code buyers} threads at once. */
    public SaleResult flashSale(boolean locked) {
        send("POST", "/sales/" + SKU + "/restock?stock=" + this.settings.getStock(), null);
        String path = "/sales/" + SKU + (locked ? "/purchase" : "/purchase-unlocked");
        AtomicInteger sold = new AtomicInteger();
        inParallel(this.settings.getBuyers(), this.settings.getPurchases(), i -> {
            if (send("POST", path, null).statusCode() == 200) {
                sold.incrementAndGet();
            }
        });
        String level = send("GET", "/sales/" + SKU, null).body();
        return new SaleResult(this.settings.getPurchases(), sold.get(), number(level, "left"),
                number(level, "oversold"));
    }

    /** Each editor appends its own numbered edits to one page; then counts the edits the page kept. */
    public WikiResult wiki(boolean locked, String page) {
        String id = page + (locked ? "-locked" : "-unlocked");
        String path = "/pages/" + id + (locked ? "" : "/unlocked");
        int total = this.settings.getEditors() * this.settings.getEditsPerEditor();
        AtomicInteger accepted = new AtomicInteger();
        inParallel(this.settings.getEditors(), total, i -> {
            String edit = "editor" + (i % this.settings.getEditors()) + "-edit" + i;
            if (send("PUT", path, edit).statusCode() == 200) {
                accepted.incrementAndGet();
            }
        });
        String body = send("GET", "/pages/" + id, null).body();
        Set<String> kept = new HashSet<>();
        Matcher edits = Pattern.compile("editor\\d+-edit\\d+").matcher(body);
        while (edits.find()) {
            kept.add(edits.group());
        }
        return new WikiResult(total, kept.size(), accepted.get() - kept.size());
    }

    /**
     * A slow editor takes the page lock with a 300 ms lease and stalls for 1.5 s; another editor gets the lock when
     * that lease runs out and writes; the slow editor's late write must be rejected by the fencing check. Tried up
     * to three times in case the second editor's request reached the server first.
     *
     * @return how many stale writes were rejected (1 when the fencing check works)
     */
    public int staleWriteRejected(String page) {
        logger.info("Demo: a slow editor now outlives its 300 ms lease on purpose. Expected next: a WARN that its lease "
                + "was lost, then its late write rejected by the fencing check (\"Rejected a stale write\", 409)");
        for (int attempt = 1; attempt <= 3; attempt++) {
            String id = page + "-" + attempt;
            CompletableFuture<HttpResponse<String>> slow = CompletableFuture
                .supplyAsync(() -> send("PUT", "/pages/" + id + "/slow?leaseMillis=300&pauseMillis=1500", "slow"));
            pause(150L * attempt); // let the slow editor take the lock first
            send("PUT", "/pages/" + id, "fast");
            if (slow.join().statusCode() == 409) {
                return 1;
            }
        }
        return 0;
    }

    /** Saves the same edit five times in a row: returns how many times it was applied. */
    public int duplicateSavesApplied(String page) {
        int applied = 0;
        for (int i = 0; i < 5; i++) {
            if (send("PUT", "/pages/" + page, "the same edit").body().contains("\"applied\":true")) {
                applied++;
            }
        }
        return applied;
    }

    private HttpResponse<String> send(String method, String path, String body) {
        HttpRequest request = HttpRequest.newBuilder(this.base.resolve(path))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "text/plain")
            .method(method, (body != null) ? BodyPublishers.ofString(body) : BodyPublishers.noBody())
            .build();
        try {
            return this.http.send(request, BodyHandlers.ofString());
        }
        catch (IOException ex) {
            throw new IllegalStateException(method + " " + path + " failed", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    private static void inParallel(int threads, int tasks, IntTask task) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>(tasks);
            for (int i = 0; i < tasks; i++) {
                int index = i;
                futures.add(pool.submit(() -> task.run(index)));
            }
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
        }
        catch (Exception ex) {
            throw new IllegalStateException("A demo request failed", ex);
        }
        finally {
            pool.shutdownNow();
        }
    }

    private static int number(String json, String field) {
        Matcher matcher = Pattern.compile("\"" + field + "\":(\\d+)").matcher(json);
        if (!matcher.find()) {
            throw new IllegalStateException("No '" + field + "' in " + json);
        }
        return Integer.parseInt(matcher.group(1));
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @FunctionalInterface
    private interface IntTask {

        void run(int index);
    }

    /** A flash-sale run: requests sent, items sold, stock left, and items sold beyond the stock. */
    public record SaleResult(int requests, int sold, int stockLeft, int oversold) {
    }

    /** A wiki run: edits sent, edits the page kept, and accepted edits that were lost. */
    public record WikiResult(int sent, int kept, int lost) {
    }

    /** Everything the demo saw. */
    public record Report(SaleResult saleLocked, SaleResult saleUnlocked, WikiResult wikiLocked,
            WikiResult wikiUnlocked, int staleWritesRejected, int duplicateSavesApplied) {

        /** With the lock: nothing oversold, no edit lost, the stale write rejected, the repeated save applied once. */
        public boolean lockHeld() {
            return this.saleLocked.oversold() == 0 && this.wikiLocked.lost() == 0 && this.staleWritesRejected == 1
                    && this.duplicateSavesApplied == 1;
        }

        /** The table the demo prints. */
        public String table() {
            StringBuilder out = new StringBuilder();
            out.append(String.format("%nFlash sale      %9s %6s %11s %9s%n", "requests", "sold", "stock left",
                    "oversold"));
            out.append(saleRow("with lock", this.saleLocked)).append(saleRow("without lock", this.saleUnlocked));
            out.append(String.format("%nWiki            %9s %6s %6s %22s%n", "edits sent", "kept", "lost",
                    "stale writes rejected"));
            out.append(String.format("  %-13s %9d %6d %6d %22d%n", "with lock", this.wikiLocked.sent(),
                    this.wikiLocked.kept(), this.wikiLocked.lost(), this.staleWritesRejected));
            out.append(String.format("  %-13s %9d %6d %6d %22s%n", "without lock", this.wikiUnlocked.sent(),
                    this.wikiUnlocked.kept(), this.wikiUnlocked.lost(), "(no fencing)"));
            out.append(String.format("%nThe same edit saved 5 times in a row was applied %d time(s).%n",
                    this.duplicateSavesApplied));
            out.append(lockHeld() ? "With the lock: nothing oversold, no edit lost.%n".formatted()
                    : "UNEXPECTED: the locked run broke a guarantee.%n".formatted());
            return out.toString();
        }

        private static String saleRow(String name, SaleResult result) {
            return String.format("  %-13s %9d %6d %11d %9d%n", name, result.requests(), result.sold(),
                    result.stockLeft(), result.oversold());
        }
    }
}
