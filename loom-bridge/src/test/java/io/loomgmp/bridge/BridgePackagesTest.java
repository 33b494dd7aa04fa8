package io.loomgmp.bridge;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The bridge's packages depend one way: the agent on the API and on {@code runtime}, the API on
 * {@code runtime} only, {@code runtime} on neither. Read from the compiled classes' constant pools
 * (class references and descriptors alike), so a new import that closes a cycle fails here.
 */
class BridgePackagesTest {
    private static final String API = "io/loomgmp/bridge/";
    private static final String AGENT = API + "agent/";
    private static final String RUNTIME = API + "runtime/";

    @Test
    void theApiDoesNotDependOnTheAgent() throws Exception {
        assertEquals(List.of(), references(API, AGENT));
    }

    @Test
    void theRuntimeDependsOnNeitherTheApiNorTheAgent() throws Exception {
        List<String> found = references(RUNTIME, AGENT);
        // Any class directly in io/loomgmp/bridge/ is API (the package info aside).
        for (String reference : references(RUNTIME, API)) {
            String rest = reference.substring(reference.indexOf(API) + API.length());
            if (!rest.startsWith("runtime/") && !rest.startsWith("agent/") && !rest.startsWith("release.properties")) {
                found.add(reference);
            }
        }
        assertEquals(List.of(), found);
    }

    /** "class: entry" for each constant-pool string of a class in {@code pkg} that names {@code target}. */
    private static List<String> references(String pkg, String target) throws IOException, URISyntaxException {
        Path dir = Path.of(Gmp.class.getProtectionDomain().getCodeSource().getLocation().toURI()).resolve(pkg);
        List<Path> classes;
        try (Stream<Path> files = Files.list(dir)) {
            classes = files.filter(file -> file.toString().endsWith(".class")).toList();
        }
        assertFalse(classes.isEmpty(), "no classes in " + dir);
        List<String> found = new ArrayList<>();
        for (Path file : classes) {
            for (PoolEntry entry : ClassFile.of().parse(file).constantPool()) {
                if (entry instanceof Utf8Entry utf8 && utf8.stringValue().contains(target)) {
                    found.add(file.getFileName() + ": " + utf8.stringValue());
                }
            }
        }
        return found;
    }
}
