package dev.distlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * lock-core's structure, read from its sources: its packages import each other in one direction, and no two of its
 * main classes name each other (a type and its subtypes aside, and a builder and what it builds). A pair that does is
 * usually one job split in two, or a callback that wants an interface the lower class declares.
 */
class StructureTest {

    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

    private static final Pattern TEXT = Pattern.compile("\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])'");

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?(dev\\.distlock[\\w.]*?)\\.[A-Z]",
            Pattern.MULTILINE);

    @Test
    void noTwoMainClassesNameEachOther() throws Exception {
        Map<String, Source> sources = sources();
        Set<String> pairs = new TreeSet<>();
        for (Source a : sources.values()) {
            for (Source b : sources.values()) {
                if (a.name().compareTo(b.name()) < 0 && a.names(b) && b.names(a) && !related(a, b)) {
                    pairs.add(a.simpleName() + " <-> " + b.simpleName());
                }
            }
        }
        assertThat(pairs).as("main classes of lock-core that name each other").isEmpty();
    }

    @Test
    void thePackagesImportEachOtherInOneDirection() {
        Map<String, Set<String>> imports = new TreeMap<>();
        for (Source source : sources().values()) {
            Set<String> imported = imports.computeIfAbsent(source.packageName(), any -> new TreeSet<>());
            Matcher matcher = IMPORT.matcher(source.text());
            while (matcher.find()) {
                if (!matcher.group(1).equals(source.packageName())) {
                    imported.add(matcher.group(1));
                }
            }
        }
        List<String> cycles = new ArrayList<>();
        for (String from : imports.keySet()) {
            for (String to : imports.get(from)) {
                if (from.compareTo(to) < 0 && reaches(imports, to, from)) {
                    cycles.add(from + " <-> " + to);
                }
            }
        }
        assertThat(cycles).as("packages that import each other, directly or through others").isEmpty();
    }

    private static boolean reaches(Map<String, Set<String>> imports, String from, String to) {
        Deque<String> next = new ArrayDeque<>(List.of(from));
        Set<String> seen = new TreeSet<>();
        while (!next.isEmpty()) {
            String at = next.pop();
            if (at.equals(to)) {
                return true;
            }
            if (seen.add(at)) {
                next.addAll(imports.getOrDefault(at, Set.of()));
            }
        }
        return false;
    }

    /** One extends or implements the other, or one is the other's builder. */
    private static boolean related(Source a, Source b) throws ClassNotFoundException {
        Class<?> first = Class.forName(a.name(), false, StructureTest.class.getClassLoader());
        Class<?> second = Class.forName(b.name(), false, StructureTest.class.getClassLoader());
        return first.isAssignableFrom(second) || second.isAssignableFrom(first)
                || a.name().equals(b.name() + "Builder") || b.name().equals(a.name() + "Builder");
    }

    /** A main source file: its class's name, and its code without comments and string literals. */
    private record Source(String name, String text, String code) {

        String simpleName() {
            return this.name.substring(this.name.lastIndexOf('.') + 1);
        }

        String packageName() {
            return this.name.substring(0, this.name.lastIndexOf('.'));
        }

        boolean names(Source other) {
            return Pattern.compile("\\b" + other.simpleName() + "\\b").matcher(this.code).find();
        }
    }

    private static Map<String, Source> sources() {
        Path root = mainSources();
        Map<String, Source> sources = new HashMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String fileName = file.getFileName().toString();
                if (fileName.equals("module-info.java") || fileName.equals("package-info.java")) {
                    continue;
                }
                String relative = root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
                String name = relative.substring(0, relative.length() - ".java".length());
                String text = Files.readString(file);
                String code = TEXT.matcher(COMMENT.matcher(text).replaceAll(" ")).replaceAll("\"\"");
                sources.put(name, new Source(name, text, code));
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        assertThat(sources).as("lock-core's main sources under " + root).hasSizeGreaterThan(50);
        return sources;
    }

    /** lock-core/src/main/java, found from the compiled classes (lock-core/target/classes). */
    private static Path mainSources() {
        try {
            Path classes = Path.of(LockService.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return classes.getParent().getParent().resolve("src/main/java");
        }
        catch (URISyntaxException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
