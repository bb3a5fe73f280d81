package dev.distlock.sample.wiki;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** The wiki's limits and timings. */
@ConfigurationProperties("sample.wiki")
public class WikiProperties {

    /** The longest edit accepted, in characters. */
    private int maxEditLength = 2000;

    /** Time between reading a page and writing it back. */
    private Duration thinkTime = Duration.ofMillis(2);

    /** A save repeated within this window (the same edit of the same page) is applied once. */
    private Duration duplicateWindow = Duration.ofSeconds(5);

    public int getMaxEditLength() {
        return this.maxEditLength;
    }

    public void setMaxEditLength(int maxEditLength) {
        this.maxEditLength = maxEditLength;
    }

    public Duration getThinkTime() {
        return this.thinkTime;
    }

    public void setThinkTime(Duration thinkTime) {
        this.thinkTime = thinkTime;
    }

    public Duration getDuplicateWindow() {
        return this.duplicateWindow;
    }

    public void setDuplicateWindow(Duration duplicateWindow) {
        this.duplicateWindow = duplicateWindow;
    }
}
