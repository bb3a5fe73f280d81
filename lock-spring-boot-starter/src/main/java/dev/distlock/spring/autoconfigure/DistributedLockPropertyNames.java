package dev.distlock.spring.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.ConfigurationPropertiesBean;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.util.ClassUtils;
import org.springframework.util.StreamUtils;

/**
 * The valid property names under {@code distlock.*}, with their types, derived from what declares them: the
 * configuration metadata of every module on the class path ({@code META-INF/spring-configuration-metadata.json}, which
 * the configuration processor generates, and {@code additional-spring-configuration-metadata.json}) and the
 * {@code @ConfigurationProperties} beans bound under {@code distlock}. A module that adds its own
 * {@code distlock.something.*} properties is covered without being listed anywhere.
 */
final class DistributedLockPropertyNames {

    private static final String PREFIX = DistributedLockProperties.PREFIX + ".";

    private static final int MAX_DEPTH = 6;

    /** Property name to type name; a type name ending in {@code *} accepts any name below it (maps). */
    private final Map<String, String> types = new TreeMap<>();

    private DistributedLockPropertyNames() {
    }

    static DistributedLockPropertyNames of(ApplicationContext context) {
        DistributedLockPropertyNames names = new DistributedLockPropertyNames();
        ClassLoader classLoader = (context.getClassLoader() != null) ? context.getClassLoader()
                : ClassUtils.getDefaultClassLoader();
        names.addMetadata(classLoader, "META-INF/spring-configuration-metadata.json");
        names.addMetadata(classLoader, "META-INF/additional-spring-configuration-metadata.json");
        for (ConfigurationPropertiesBean bean : ConfigurationPropertiesBean.getAll(context).values()) {
            String prefix = bean.getAnnotation().prefix();
            Class<?> type = bean.asBindTarget().getType().resolve();
            if ((prefix.equals(DistributedLockProperties.PREFIX) || prefix.startsWith(PREFIX)) && type != null) {
                names.addBound(prefix, type, 0);
            }
        }
        return names;
    }

    /** Whether {@code name} (canonical form, without indexes) is a valid property or lies below a map property. */
    boolean isKnown(String name) {
        if (this.types.containsKey(name)) {
            return true;
        }
        for (Map.Entry<String, String> entry : this.types.entrySet()) {
            if (entry.getValue().endsWith("*") && name.startsWith(entry.getKey() + ".")) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code name} is a {@link Duration} property. */
    boolean isDuration(String name) {
        return Duration.class.getName().equals(this.types.get(name));
    }

    /**
     * The valid name closest to {@code name}, or null when none is known: by edit distance, less a bonus for each word
     * they share, larger for the first word of the last part ({@code distlock.wait-time} is nearer
     * {@code distlock.default-wait-time} than {@code distlock.wait-strategy}, {@code distlock.lease-time} nearer
     * {@code distlock.watchdog.lease} than {@code distlock.default-wait-time}).
     */
    @Nullable String nearest(String name) {
        Set<String> words = words(name);
        String lastPart = name.substring(name.lastIndexOf('.') + 1);
        String mainWord = lastPart.split("-")[0];
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : this.types.keySet()) {
            Set<String> shared = words(candidate);
            shared.retainAll(words);
            int distance = distance(name, candidate) - 3 * shared.size() - (shared.contains(mainWord) ? 6 : 0);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static Set<String> words(String name) {
        Set<String> words = new HashSet<>(Arrays.asList(name.split("[.\\-]")));
        words.remove("distlock");
        return words;
    }

    Collection<String> all() {
        return this.types.keySet();
    }

    private void addMetadata(ClassLoader classLoader, String resource) {
        try {
            Enumeration<URL> urls = classLoader.getResources(resource);
            while (urls.hasMoreElements()) {
                String json;
                try (InputStream in = urls.nextElement().openStream()) {
                    json = StreamUtils.copyToString(in, StandardCharsets.UTF_8);
                }
                Object properties = JsonParserFactory.getJsonParser().parseMap(json).get("properties");
                if (properties instanceof List<?> list) {
                    for (Object item : list) {
                        if (item instanceof Map<?, ?> property && property.get("name") instanceof String name
                                && name.startsWith(PREFIX)) {
                            Object type = property.get("type");
                            add(name, (type instanceof String text) ? text : "");
                        }
                    }
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read " + resource, ex);
        }
    }

    private void add(String name, String type) {
        this.types.merge(name, type.startsWith("java.util.Map") ? type + "*" : type,
                (known, added) -> known.isEmpty() ? added : known);
    }

    private void addBound(String prefix, Class<?> type, int depth) {
        if (type.isRecord()) {
            for (RecordComponent component : type.getRecordComponents()) {
                addProperty(prefix, component.getName(), component.getType(), depth);
            }
            return;
        }
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() != null && !"class".equals(descriptor.getName())) {
                addProperty(prefix, descriptor.getName(), descriptor.getPropertyType(), depth);
            }
        }
    }

    private void addProperty(String prefix, String field, Class<?> type, int depth) {
        String name = prefix + "." + field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
        if (Map.class.isAssignableFrom(type)) {
            add(name, Map.class.getName());
        }
        else if (BeanUtils.isSimpleValueType(type) || type.isArray() || Collection.class.isAssignableFrom(type)
                || type.getName().startsWith("java.") || depth >= MAX_DEPTH) {
            add(name, type.getName());
        }
        else {
            addBound(name, type, depth + 1);
        }
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
