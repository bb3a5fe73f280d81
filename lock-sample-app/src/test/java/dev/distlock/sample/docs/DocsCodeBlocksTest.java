package dev.distlock.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.json.JsonParserFactory;
import org.yaml.snakeyaml.Yaml;

import dev.distlock.sample.demo.Demo;

/**
 * The README's and docs' code blocks are what the code accepts, checked by the build:
 * <ul>
 * <li>every {@code java} block compiles against this module's test class path (the starter, Actuator, ShedLock,
 * Spring Integration), as a whole file when it declares a type, else as members of a class, else as the statements
 * of a method. What a fragment takes for granted (an injected {@code lockService}, the reader's own {@code stock}) is
 * declared in an HTML comment just above the block, hidden on a rendered page: {@code <!-- java-context ... -->};
 * {@code <!-- java-context: skip ... -->} marks a block of another library, shown for comparison; a context line
 * {@code // needs some.Class} compiles the block only where that class is on the class path (a newer Lettuce's
 * option, say: this test runs on Spring Boot 4.1 in lock-sample-app and on 3.5 in lock-sample-app-boot35);</li>
 * <li>every {@code distlock.*} key in a {@code yaml} or {@code properties} block is a property the starter declares;</li>
 * <li>every {@code dev.distlock} artifact in an {@code xml} block is a module of this build;</li>
 * <li>the property table of docs/spring-boot.md lists every {@code distlock.*} property.</li>
 * </ul>
 */
class DocsCodeBlocksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern BLOCK = Pattern.compile(
            "(?:<!-- java-context(:?)(.*?)-->\\n)?^```(\\w+)\\n(.*?)^```", Pattern.DOTALL | Pattern.MULTILINE);

    private static final Pattern TYPE = Pattern.compile(
            "^(?:public |final |abstract )*(?:class|record|interface|enum) (\\w+)", Pattern.MULTILINE);

    private static final Pattern MEMBER = Pattern.compile("^(?:@\\w+|[\\w<>\\[\\], ?]+ \\w+\\([^;]*\\{?\\s*$)");

    private static List<Block> blocks;

    @BeforeAll
    static void readDocs() throws IOException {
        blocks = new ArrayList<>();
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        for (Path file : files) {
            String text = Files.readString(file);
            Matcher matcher = BLOCK.matcher(text);
            while (matcher.find()) {
                int line = text.substring(0, matcher.start(3)).split("\n", -1).length;
                boolean skip = ":".equals(matcher.group(1)) && matcher.group(2).trim().startsWith("skip");
                String context = (matcher.group(2) != null && !skip) ? matcher.group(2) : "";
                blocks.add(new Block(ROOT.relativize(file) + ":" + line, matcher.group(3), matcher.group(4), context,
                        skip));
            }
        }
    }

    @Test
    void everyJavaBlockCompiles(@TempDir Path sources) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Map<Path, String> origins = new LinkedHashMap<>();
        int index = 0;
        for (Block block : blocks) {
            if (!block.language().equals("java") || block.skip()) {
                continue;
            }
            String missing = missingClass(block);
            if (missing != null) {
                System.out.println(block.origin() + " not compiled: it needs " + missing + ", absent here");
                continue;
            }
            index++;
            String packageName = "docs.block" + index;
            Path file = write(sources, packageName, block);
            origins.put(file, block.origin());
        }
        assertThat(origins).as("java blocks found").hasSizeGreaterThan(10);
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, null,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("-proc:none", "-parameters", "-Xlint:none", "-d",
                    sources.resolve("classes").toString(), "-classpath", System.getProperty("java.class.path"));
            Files.createDirectories(sources.resolve("classes"));
            boolean compiled = compiler.getTask(new StringWriter(), files, diagnostics, options, null,
                    files.getJavaFileObjectsFromPaths(origins.keySet())).call();
            List<String> errors = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
                if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                    Path source = Path.of(diagnostic.getSource().toUri());
                    errors.add(origins.get(source) + " (" + source.getFileName() + " line "
                            + diagnostic.getLineNumber() + "): " + diagnostic.getMessage(null));
                }
            }
            assertThat(errors).as("compile errors of the docs' java blocks").isEmpty();
            assertThat(compiled).isTrue();
        }
    }

    @Test
    void everyDistlockKeyInAConfigurationBlockIsAProperty() throws IOException {
        Set<String> known = declaredProperties();
        List<String> unknown = new ArrayList<>();
        for (Block block : blocks) {
            Map<String, Object> flat = new LinkedHashMap<>();
            if (block.language().equals("yaml") || block.language().equals("yml")) {
                for (Object document : new Yaml().loadAll(block.code())) {
                    if (document instanceof Map<?, ?> map) {
                        flatten("", map, flat);
                    }
                }
            }
            else if (block.language().equals("properties")) {
                block.code().lines().filter(line -> line.contains("=") && !line.startsWith("#"))
                    .forEach(line -> flat.put(line.substring(0, line.indexOf('=')).trim(), ""));
            }
            for (String key : flat.keySet()) {
                String name = key.replaceAll("\\[\\d+]$", "");
                if (name.startsWith("distlock.") && !known.contains(name) && !isBelowMap(name, known)) {
                    unknown.add(block.origin() + ": " + key);
                }
            }
        }
        assertThat(unknown).as("distlock keys in the docs that the starter does not declare").isEmpty();
    }

    @Test
    void thePropertyTableListsEveryProperty() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/spring-boot.md"));
        List<String> missing = declaredProperties().stream().filter(name -> name.startsWith("distlock."))
            .filter(name -> !page.contains("`" + name + "`")).toList();
        assertThat(missing).as("properties missing from docs/spring-boot.md").isEmpty();
    }

    @Test
    void everyDistlockArtifactInAnXmlBlockIsAModule() throws IOException {
        Pattern dependency = Pattern.compile(
                "<groupId>dev\\.distlock</groupId>\\s*<artifactId>([\\w-]+)</artifactId>");
        List<String> unknown = new ArrayList<>();
        for (Block block : blocks) {
            if (block.language().equals("xml")) {
                Matcher matcher = dependency.matcher(block.code());
                while (matcher.find()) {
                    if (!Files.exists(ROOT.resolve(matcher.group(1)).resolve("pom.xml"))) {
                        unknown.add(block.origin() + ": " + matcher.group(1));
                    }
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    /** The README's demo table, with its numbers put through the demo's own formatting, is what the demo prints. */
    @Test
    void theReadmesDemoTableIsTheDemosFormat() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Matcher block = Pattern.compile("<!-- demo-table -->\n```\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("the README's demo table").isTrue();
        String quoted = block.group(1);
        List<int[]> rows = new ArrayList<>();
        for (String line : quoted.lines().filter(line -> line.startsWith("  with") || line.startsWith("  without"))
            .toList()) {
            rows.add(Pattern.compile("\\d+").matcher(line).results().mapToInt(r -> Integer.parseInt(r.group()))
                .toArray());
        }
        Matcher applied = Pattern.compile("applied (\\d+) time").matcher(quoted);
        assertThat(rows).hasSize(4);
        assertThat(applied.find()).isTrue();
        Demo.Report report = new Demo.Report(new Demo.SaleResult(rows.get(0)[0], rows.get(0)[1], rows.get(0)[2],
                rows.get(0)[3]), new Demo.SaleResult(rows.get(1)[0], rows.get(1)[1], rows.get(1)[2], rows.get(1)[3]),
                new Demo.WikiResult(rows.get(2)[0], rows.get(2)[1], rows.get(2)[2]),
                new Demo.WikiResult(rows.get(3)[0], rows.get(3)[1], rows.get(3)[2]), rows.get(2)[3],
                Integer.parseInt(applied.group(1)));
        assertThat(quoted).isEqualTo(report.table().stripLeading());
        String demoSource = Files.readString(ROOT.resolve(
                "lock-sample-app/src/main/java/dev/distlock/sample/demo/Demo.java"));
        assertThat(demoSource.replace("\"\n                + \"", "").replace("\\\"", "\""))
            .as("the README's quoted INFO line of the demo")
            .contains("Demo: a slow editor now outlives its 300 ms lease on purpose. Expected next: a WARN that its "
                    + "lease was lost, then its late write rejected by the fencing check (\"Rejected a stale write\", "
                    + "409)");
        assertThat(readme).contains("Demo: a slow editor now outlives its 300 ms lease on purpose. Expected next: a "
                + "WARN that its lease was lost, then its late write rejected by the fencing check (\"Rejected a "
                + "stale write\", 409)");
    }

    /** The class a block's context says it needs ({@code // needs some.Class}) when it is absent, else null. */
    private static String missingClass(Block block) {
        return block.context().lines()
            .filter(line -> line.startsWith("// needs "))
            .map(line -> line.substring("// needs ".length()).trim())
            .filter(name -> !isPresent(name))
            .findFirst()
            .orElse(null);
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, DocsCodeBlocksTest.class.getClassLoader());
            return true;
        }
        catch (ClassNotFoundException ex) {
            return false;
        }
    }

    private static Path write(Path sources, String packageName, Block block) throws IOException {
        List<String> imports = new ArrayList<>();
        List<String> contextLines = new ArrayList<>();
        List<String> body = new ArrayList<>();
        block.context().lines().forEach(line -> (line.startsWith("import ") ? imports : contextLines).add(line));
        block.code().lines().forEach(line -> (line.startsWith("import ") ? imports : body).add(line));
        String code = String.join("\n", body);
        String context = String.join("\n", contextLines);
        Matcher type = TYPE.matcher(code);
        String className;
        String unit;
        if (type.find()) {
            Matcher publicType = Pattern.compile("^public (?:final |abstract )*(?:class|record|interface|enum) (\\w+)",
                    Pattern.MULTILINE).matcher(code);
            className = publicType.find() ? publicType.group(1) : type.group(1);
            unit = code + "\n\n" + context;
        }
        else {
            className = "Block";
            boolean members = code.lines().filter(line -> !line.isBlank() && !line.startsWith(" ")
                    && !line.startsWith("}") && !line.startsWith("//")).allMatch(line -> MEMBER.matcher(line).find());
            unit = "class Block {\n" + context + "\n" + (members ? code : "void block() throws Throwable {\n" + code
                    + "\n}") + "\n}\n";
        }
        Path directory = sources.resolve(packageName.replace('.', '/'));
        Files.createDirectories(directory);
        Path file = directory.resolve(className + ".java");
        Files.writeString(file, "package " + packageName + ";\n\n" + String.join("\n", imports) + "\n\n" + unit);
        return file;
    }

    /** The distlock properties the starter and the modules on the class path declare, from their metadata. */
    private static Set<String> declaredProperties() throws IOException {
        Set<String> names = new TreeSet<>();
        for (String resource : List.of("META-INF/spring-configuration-metadata.json",
                "META-INF/additional-spring-configuration-metadata.json")) {
            Enumeration<java.net.URL> urls = DocsCodeBlocksTest.class.getClassLoader().getResources(resource);
            for (java.net.URL url : Collections.list(urls)) {
                try (InputStream in = url.openStream()) {
                    Object properties = JsonParserFactory.getJsonParser()
                        .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .get("properties");
                    if (properties instanceof List<?> list) {
                        for (Object item : list) {
                            if (item instanceof Map<?, ?> property && property.get("name") instanceof String name
                                    && name.startsWith("distlock.")) {
                                names.add(name);
                            }
                        }
                    }
                }
            }
        }
        return names;
    }

    private static boolean isBelowMap(String name, Set<String> known) {
        return known.stream().anyMatch(property -> name.startsWith(property + "."));
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, Object> flat) {
        map.forEach((key, value) -> {
            String name = prefix.isEmpty() ? String.valueOf(key) : prefix + "." + key;
            if (value instanceof Map<?, ?> nested) {
                flatten(name, nested, flat);
            }
            else {
                flat.put(name, value);
            }
        });
    }

    record Block(String origin, String language, String code, String context, boolean skip) {
    }
}
