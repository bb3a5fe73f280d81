package dev.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The distlock sample: a flash sale that must not oversell and a wiki that must not lose edits, each with a locked
 * endpoint and an unlocked one that shows the race. Run with the {@code demo} profile to fire a bounded burst of
 * buyers and editors at it and print what happened.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
