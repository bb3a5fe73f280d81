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

    /**
     * The valid name an environment variable stands for: {@code DISTLOCK_DEFAULT_WAIT_TIME} arrives as
     * {@code distlock.default.wait.time} and {@code DISTLOCK_DEFAULTWAITTIME} as {@code distlock.defaultwaittime}, both
     * {@code distlock.default-wait-time}. {@code name} itself when none matches.
     */
    String fromEnvironment(String name) {
        String loose = loose(name);
        for (String known : this.types.keySet()) {
            if (loose(known).equals(loose)) {
                return known;
            }
        }
        return name;
    }

    private static String loose(String name) {
        return name.replace(".", "").replace("-", "").replace("_", "");
    }

    /** Whether {@code name} is a {@link Duration} property. */
    boolean isDuration(String name) {
        return Duration.class.getName().equals(this.types.get(name));
    }

    /**
     * The valid name {@code name} most likely was meant as, or null when none is close enough to suggest. Close enough
     * is a typo (an edit distance of 2, 3 for a last part over 8 characters), or the same words under the same or a
     * deeper parent: every word of the last part within the candidate's last part ({@code distlock.wait-time} and
     * {@code distlock.default-wait-time}), or the first word being the candidate's last part ({@code distlock.lease-time}
     * and {@code distlock.watchdog.lease}). Of these, the nearest by edit distance less a bonus for each shared word.
     * Unrelated names ({@code distlock.redis.service.host}) get no suggestion.
     */
    @Nullable String nearest(String name) {
        Set<String> words = words(name);
        String parent = parent(name);
        String lastPart = lastPart(name);
        List<String> lastWords = Arrays.asList(lastPart.split("-"));
        String mainWord = lastWords.get(0);
        int typoDistance = (lastPart.length() > 8) ? 3 : 2;
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : this.types.keySet()) {
            int editDistance = distance(name, candidate);
            String candidateLast = lastPart(candidate);
            String candidateParent = parent(candidate);
            boolean underParent = candidateParent.equals(parent) || candidateParent.startsWith(parent + ".");
            boolean close = editDistance <= typoDistance
                    || (underParent && Arrays.asList(candidateLast.split("-")).containsAll(lastWords))
                    || (underParent && candidateLast.equals(mainWord));
            if (!close) {
                continue;
            }
            Set<String> shared = words(candidate);
            shared.retainAll(words);
            int distance = editDistance - 3 * shared.size() - (shared.contains(mainWord) ? 6 : 0);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static String parent(String name) {
        int dot = name.lastIndexOf('.');
        return (dot < 0) ? "" : name.substring(0, dot);
    }

    private static String lastPart(String name) {
        return name.substring(name.lastIndexOf('.') + 1);
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
