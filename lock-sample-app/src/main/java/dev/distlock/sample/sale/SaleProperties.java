package dev.distlock.sample.sale;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** The flash sale's catalog and how slow its store is. */
@ConfigurationProperties("sample.sale")
public class SaleProperties {

    /** Initial stock per SKU, restored at start-up. */
    private Map<String, Integer> stock = new LinkedHashMap<>(Map.of("tshirt", 100, "mug", 50));

    /** Time between reading the stock and writing it back, as a database round trip would take. */
    private Duration thinkTime = Duration.ofMillis(2);

    /** The most items one purchase may take. */
    private int maxQuantity = 10;

    public Map<String, Integer> getStock() {
        return this.stock;
    }

    public void setStock(Map<String, Integer> stock) {
        this.stock = stock;
    }

    public Duration getThinkTime() {
        return this.thinkTime;
    }

    public void setThinkTime(Duration thinkTime) {
        this.thinkTime = thinkTime;
    }

    public int getMaxQuantity() {
        return this.maxQuantity;
    }

    public void setMaxQuantity(int maxQuantity) {
        this.maxQuantity = maxQuantity;
    }
}
