package dev.distlock.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.distlock.spring.micrometer.MetricNames;

/** The {@code name} tag of lock meters and observations: see {@link MetricNames}. */
@ConfigurationProperties("distlock.metrics")
public class LockMetricsProperties {

    /** The most distinct lock names that tag meters and observations; names beyond it are tagged "other". */
    private int maxNames = 100;

    /**
     * Names derived from keys (a key's first part, such as "orders" of "orders:42") that may tag meters; any other
     * lock without a declared name is tagged "unnamed", so that callers who control keys cannot add meters.
     */
    private List<String> keyNames = new ArrayList<>();

    public int getMaxNames() {
        return this.maxNames;
    }

    public void setMaxNames(int maxNames) {
        this.maxNames = maxNames;
    }

    public List<String> getKeyNames() {
        return this.keyNames;
    }

    public void setKeyNames(List<String> keyNames) {
        this.keyNames = keyNames;
    }

    MetricNames names() {
        return new MetricNames(this.maxNames, this.keyNames);
    }
}
