package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Maps {@code distlock.*} properties onto a lock service builder, which owns their defaults and bounds. A value the
 * builder refuses (an {@link IllegalArgumentException} from a setter or from {@code build()}) stops startup with an
 * {@link InvalidConfigurationPropertyValueException} naming the property, which Boot's failure analyzer reports with
 * where the value was set; its reason is the builder's message with each setting's name replaced by its property's.
 */
final class BuilderProperties {

    private static final Pattern ISO_DURATION = Pattern.compile("(?<![\\w.])-?PT[-0-9.HMS]+");

    /** The builder's name of a setting (a method or parameter name) to its property. */
    private final Map<String, String> properties = new LinkedHashMap<>();

    private final Map<String, @Nullable Object> values = new HashMap<>();

    /** Calls {@code setter} with the value, null included, which the builder refuses. */
    <T> BuilderProperties set(String setting, String property, @Nullable T value, Consumer<@Nullable T> setter) {
        name(setting, property, value);
        apply(() -> setter.accept(value), property);
        return this;
    }

    /** Calls {@code setter} with the value unless it is null: unset, so the builder's default (or derived) value. */
    <T> BuilderProperties setIfPresent(String setting, String property, @Nullable T value, Consumer<T> setter) {
        name(setting, property, value);
        if (value != null) {
            apply(() -> setter.accept(value), property);
        }
        return this;
    }

    /** Records that the builder calls {@code property} {@code setting}, for a call of several settings. */
    BuilderProperties name(String setting, String property, @Nullable Object value) {
        this.properties.put(setting, property);
        this.values.put(property, value);
        return this;
    }

    /** Runs a builder call; a refusal names the property its message names first, else {@code property}. */
    void apply(Runnable call, String property) {
        try {
            call.run();
        }
        catch (IllegalArgumentException ex) {
            throw refusal(ex, property);
        }
    }

    /** Builds the service; a refusal names the property its message names first. */
    <S> S build(Supplier<S> build) {
        try {
            return build.get();
        }
        catch (IllegalArgumentException ex) {
            throw refusal(ex, null);
        }
    }

    private RuntimeException refusal(IllegalArgumentException ex, @Nullable String property) {
        String message = String.valueOf(ex.getMessage());
        if (this.properties.isEmpty()) {
            return ex;
        }
        String named = null;
        Matcher settings = Pattern.compile(this.properties.keySet().stream().map(Pattern::quote)
            .collect(Collectors.joining("|", "\\b(", ")\\b"))).matcher(message);
        StringBuilder reason = new StringBuilder();
        while (settings.find()) {
            String mentioned = this.properties.get(settings.group(1));
            named = (named != null) ? named : mentioned;
            settings.appendReplacement(reason, Matcher.quoteReplacement(mentioned));
        }
        settings.appendTail(reason);
        named = (named != null) ? named : property;
        if (named == null) {
            return ex;
        }
        return new Refusal(named, shown(this.values.get(named)), humanDurations(reason.toString()), ex);
    }

    private static @Nullable Object shown(@Nullable Object value) {
        return (value instanceof Duration duration) ? HumanDurations.format(duration) : value;
    }

    /** {@code PT0.01S} as {@code 10 ms}. */
    private static String humanDurations(String text) {
        Matcher iso = ISO_DURATION.matcher(text);
        StringBuilder result = new StringBuilder();
        while (iso.find()) {
            String replacement;
            try {
                replacement = HumanDurations.format(Duration.parse(iso.group()));
            }
            catch (DateTimeParseException ex) {
                replacement = iso.group();
            }
            iso.appendReplacement(result, Matcher.quoteReplacement(replacement));
        }
        return iso.appendTail(result).toString();
    }

    /** Boot's exception with the builder's as its cause: Boot 4.0 has no public constructor taking one. */
    private static final class Refusal extends InvalidConfigurationPropertyValueException {

        private final IllegalArgumentException refusal;

        Refusal(String name, @Nullable Object value, String reason, IllegalArgumentException refusal) {
            super(name, value, reason);
            this.refusal = refusal;
        }

        @Override
        public synchronized Throwable getCause() {
            return this.refusal;
        }
    }
}
