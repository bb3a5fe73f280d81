package dev.distlock.sample.sale;

import java.util.Map;

import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

import dev.distlock.sample.Pause;

/**
 * Stock kept in Redis and updated the way most applications do it: read, decide, write back. Between the read and
 * the write another buyer can read the same stock, so without a lock two buyers both take "the last item".
 */
@Component
public class StockStore {

    private final StringRedisTemplate redis;

    private final SaleProperties properties;

    public StockStore(StringRedisTemplate redis, SaleProperties properties) {
        this.redis = redis;
        this.properties = properties;
    }

    @EventListener(ApplicationStartedEvent.class) // before the demo runs, on ApplicationReadyEvent
    public void restock() {
        for (Map.Entry<String, Integer> item : this.properties.getStock().entrySet()) {
            reset(item.getKey(), item.getValue());
        }
    }

    /** Sets the stock of a SKU and forgets its sales. */
    public void reset(String sku, int stock) {
        this.redis.opsForValue().set(stockKey(sku), Integer.toString(stock));
        this.redis.opsForValue().set(soldKey(sku), "0");
        this.redis.opsForValue().set(initialKey(sku), Integer.toString(stock));
    }

    public boolean exists(String sku) {
        return Boolean.TRUE.equals(this.redis.hasKey(stockKey(sku)));
    }

    public StockLevel level(String sku) {
        int initial = number(initialKey(sku));
        int sold = number(soldKey(sku));
        return new StockLevel(sku, initial, number(stockKey(sku)), sold, Math.max(0, sold - initial));
    }

    /**
     * Takes {@code quantity} items if the stock allows: a read-then-write that is only safe under a lock per SKU.
     *
     * @return whether the items were sold
     */
    public boolean take(String sku, int quantity) {
        int stock = number(stockKey(sku));
        if (stock < quantity) {
            return false;
        }
        Pause.of(this.properties.getThinkTime());
        this.redis.opsForValue().set(stockKey(sku), Integer.toString(stock - quantity));
        this.redis.opsForValue().increment(soldKey(sku), quantity);
        return true;
    }

    private int number(String key) {
        String value = this.redis.opsForValue().get(key);
        return (value != null) ? Integer.parseInt(value) : 0;
    }

    private static String stockKey(String sku) {
        return "sample:sale:" + sku + ":stock";
    }

    private static String soldKey(String sku) {
        return "sample:sale:" + sku + ":sold";
    }

    private static String initialKey(String sku) {
        return "sample:sale:" + sku + ":initial";
    }

    /**
     * A SKU's stock: what it started with, what is left, how many were sold, and how many of those were sold beyond
     * the stock (only a race produces these).
     */
    public record StockLevel(String sku, int initial, int left, int sold, int oversold) {
    }
}
