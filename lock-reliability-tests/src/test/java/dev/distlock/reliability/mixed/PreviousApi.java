package dev.distlock.reliability.mixed;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Whether the previous engine can run on today's API package {@code dev.distlock} unchanged, as
 * {@link PreviousEngine} runs it: every public type of the previous API exists today with the same supertypes and at
 * least its public members (what the previous engine was compiled against links), enum constants included, and
 * today's interfaces declare no abstract method the previous API lacked (the previous engine implements them). Any
 * difference stops the mixed mode before it runs: a difference here would change what a call or an exception means.
 */
final class PreviousApi {

    private PreviousApi() {
    }

    /** The differences between the previous build's API package in {@code classes} and today's, empty when none. */
    static List<String> differences(Path classes, ClassLoader today) throws IOException {
        List<String> differences = new ArrayList<>();
        try (URLClassLoader previous = new URLClassLoader("previous-api", new URL[] { classes.toUri().toURL() },
                today) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                synchronized (getClassLoadingLock(name)) {
                    Class<?> type = findLoadedClass(name);
                    if (type == null && name.startsWith("dev.distlock.")) {
                        try {
                            type = findClass(name);
                        }
                        catch (ClassNotFoundException ex) {
                            // not in the previous build: today's
                        }
                    }
                    return type != null ? type : super.loadClass(name, resolve);
                }
            }
        }; Stream<Path> files = Files.list(classes.resolve("dev/distlock"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String name = "dev.distlock." + file.getFileName().toString().replace(".class", "");
                if (name.endsWith("package-info")) {
                    continue;
                }
                Class<?> old = previous.loadClass(name);
                if (!Modifier.isPublic(old.getModifiers())) {
                    continue;
                }
                Class<?> now;
                try {
                    now = Class.forName(name, false, today);
                }
                catch (ClassNotFoundException ex) {
                    differences.add(name + " is gone");
                    continue;
                }
                compare(old, now, differences);
            }
        }
        catch (ClassNotFoundException ex) {
            throw new AssertionError("the previous API cannot be loaded", ex);
        }
        return differences;
    }

    private static void compare(Class<?> old, Class<?> now, List<String> differences) {
        String name = now.getName();
        if (!supertypes(old).equals(supertypes(now))) {
            differences.add(name + ": supertypes " + supertypes(old) + " became " + supertypes(now));
        }
        Set<String> current = members(now);
        for (String member : members(old)) {
            if (!current.contains(member)) {
                differences.add(name + ": " + member + " is gone");
            }
        }
        if (now.isInterface()) {
            Set<String> before = members(old);
            for (Method method : now.getMethods()) {
                if (Modifier.isAbstract(method.getModifiers()) && !before.contains(signature(method))) {
                    differences.add(name + ": abstract " + signature(method) + " is new (the previous engine does "
                            + "not implement it)");
                }
            }
        }
    }

    private static List<String> supertypes(Class<?> type) {
        List<String> names = new ArrayList<>();
        names.add(type.getSuperclass() == null ? "-" : type.getSuperclass().getName());
        Arrays.stream(type.getInterfaces()).map(Class::getName).sorted().forEach(names::add);
        return names;
    }

    /** Public methods (inherited ones too), constructors, fields and enum constants, as text. */
    private static Set<String> members(Class<?> type) {
        Set<String> members = new TreeSet<>();
        for (Method method : type.getMethods()) {
            members.add(signature(method));
        }
        for (Constructor<?> constructor : type.getConstructors()) {
            members.add("new" + parameters(constructor.getParameterTypes()));
        }
        for (Field field : type.getFields()) {
            members.add("field " + field.getType().getName() + " " + field.getName());
        }
        return members;
    }

    private static String signature(Method method) {
        return method.getReturnType().getName() + " " + method.getName() + parameters(method.getParameterTypes());
    }

    private static String parameters(Class<?>[] types) {
        return "(" + String.join(", ", Arrays.stream(types).map(Class::getName).toList()) + ")";
    }
}
