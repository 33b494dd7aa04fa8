package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.classfile.MalformedClassException;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * The preemption polls over a large set of real class files, by hand (it depends on what the
 * machine has, so it is no unit test): {@code java -cp <test classpath> io.loomgmp.bridge.agent.RealClassesCheck
 * <dir with jars> <fat jar>}.
 * <ol>
 *   <li>Every class file in every jar under the directory (e.g. {@code ~/.m2/repository}) through
 *       {@link PreemptionPolls#instrument}: counts those polled, those left to the ClassFile API,
 *       the malformed and the failures; every 20th polled class also through the ClassFile API's
 *       verifier, original and polled: a polled class may not have more errors than its original
 *       (the errors of both are mostly types the verifier cannot resolve here).</li>
 *   <li>Every class of a Spring Boot fat jar's libraries ({@code BOOT-INF/lib}), polled, loaded in
 *       HotSpot through one loader over all of them and linked ({@code getDeclaredMethods} links,
 *       which verifies), and the same with the original bytes: a polled class that fails to
 *       verify where its original verifies is an error.</li>
 * </ol>
 * Exits 1 if anything failed that way. A self-check first makes sure that a class that does not
 * verify is caught.
 */
public final class RealClassesCheck {
    private RealClassesCheck() {
    }

    public static void main(String[] args) throws Exception {
        selfCheck();
        long started = System.nanoTime();
        int problems = transformAll(Path.of(args[0]));
        if (args.length > 1) {
            problems += loadFatJar(Path.of(args[1]));
        }
        System.out.printf("real classes: %d problems, %.0f s%n", problems, (System.nanoTime() - started) / 1e9);
        System.exit(problems == 0 ? 0 : 1);
    }

    private static int transformAll(Path dir) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.walk(dir)) {
            jars = files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
        }
        long classes = 0, polled = 0, malformed = 0, failed = 0, verified = 0, worse = 0;
        AtomicLong viaApi = new AtomicLong();
        List<String> examples = new ArrayList<>();
        for (Path jar : jars) {
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                for (ZipEntry entry : zip.stream().toList()) {
                    if (!entry.getName().endsWith(".class") || entry.getName().endsWith("module-info.class")) {
                        continue;
                    }
                    byte[] bytes;
                    try (InputStream in = zip.getInputStream(entry)) {
                        bytes = in.readAllBytes();
                    }
                    classes++;
                    byte[] out;
                    try {
                        out = PreemptionPolls.instrument(bytes, viaApi);
                    } catch (MalformedClassException e) {
                        malformed++;
                        if (examples.size() < 10) {
                            examples.add("malformed? " + jar.getFileName() + "!" + entry.getName() + ": " + e.getMessage());
                        }
                        continue;
                    } catch (Throwable e) {
                        failed++;
                        if (examples.size() < 10) {
                            examples.add(jar.getFileName() + "!" + entry.getName() + ": " + e);
                        }
                        continue;
                    }
                    if (out == null) {
                        continue;
                    }
                    polled++;
                    if (polled % 20 == 0) {
                        verified++;
                        int before = ClassFile.of().verify(bytes).size();
                        var after = ClassFile.of().verify(out);
                        if (after.size() > before) {
                            worse++;
                            if (examples.size() < 10) {
                                examples.add(jar.getFileName() + "!" + entry.getName() + ": " + before + " verify errors before, "
                                        + after.size() + " after: " + after.getFirst());
                            }
                        }
                    }
                }
            } catch (IOException e) {
                System.out.println("  unreadable jar " + jar + ": " + e);
            }
        }
        System.out.printf("transformer: %d jars, %d class files: %d polled (%d through the ClassFile API), %d malformed,"
                + " %d failed; %d polled classes verified by the ClassFile API, %d with more errors than their original%n",
                jars.size(), classes, polled, viaApi.get(), malformed, failed, verified, worse);
        examples.forEach(example -> System.out.println("  " + example));
        return (int) (failed + worse);
    }

    /** Loads and links every class of the fat jar's libraries, polled and original; returns the polled classes that failed where the originals did not. */
    private static int loadFatJar(Path fatJar) throws IOException {
        Map<String, byte[]> classes = new HashMap<>();
        try (ZipFile zip = new ZipFile(fatJar.toFile())) {
            for (ZipEntry lib : zip.stream().filter(e -> e.getName().startsWith("BOOT-INF/lib/") && e.getName().endsWith(".jar")).toList()) {
                try (ZipInputStream jar = new ZipInputStream(zip.getInputStream(lib))) {
                    for (ZipEntry entry; (entry = jar.getNextEntry()) != null; ) {
                        String name = entry.getName();
                        if (name.endsWith(".class") && !name.startsWith("META-INF/") && !name.endsWith("module-info.class")) {
                            classes.putIfAbsent(name.substring(0, name.length() - 6), jar.readAllBytes());
                        }
                    }
                }
            }
        }
        Loader original = new Loader(classes, false);
        Loader polled = new Loader(classes, true);
        int bothLinked = 0, neither = 0, regressions = 0, fixed = 0;
        List<String> examples = new ArrayList<>();
        for (String name : classes.keySet().stream().sorted().toList()) {
            String before = link(original, name);
            String after = link(polled, name);
            if (before == null && after == null) {
                bothLinked++;
            } else if (before == null) {
                regressions++;
                if (examples.size() < 10) {
                    examples.add(name + ": " + after);
                }
            } else if (after == null) {
                fixed++;
            } else {
                neither++;
            }
        }
        System.out.printf("HotSpot: %d classes of %s's libraries, %d of them polled: %d linked (so verified) both polled"
                + " and original, %d linked in neither form (a missing optional dependency), %d only polled, %d only original%n",
                classes.size(), fatJar.getFileName(), polled.polledCount, bothLinked, neither, fixed, regressions);
        examples.forEach(example -> System.out.println("  " + example));
        return regressions;
    }

    /** Loads and links the class: null if that worked, else the error. */
    private static String link(ClassLoader loader, String internalName) {
        try {
            Class<?> type = Class.forName(internalName.replace('/', '.'), false, loader);
            type.getDeclaredMethods(); // links the class: verifies it
            return null;
        } catch (Throwable e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** A class that does not verify must be caught by {@link #link}: else the check could pass for nothing. */
    private static void selfCheck() {
        byte[] bad = ClassFile.of().build(java.lang.constant.ClassDesc.of("com.acme.Bad"), type -> type
                .withMethodBody("bad", java.lang.constant.ConstantDescs.MTD_void, ClassFile.ACC_STATIC,
                        code -> code.iconst_0().areturn()));
        String error = link(new Loader(Map.of("com/acme/Bad", bad), false), "com/acme/Bad");
        if (error == null || !error.startsWith("VerifyError")) {
            throw new AssertionError("a class that does not verify linked: " + error);
        }
    }

    /** Defines the given classes itself, polled or not; the rest through the application loader (loom-gmp's Gmp). */
    private static final class Loader extends ClassLoader {
        private final Map<String, byte[]> classes;
        private final boolean poll;
        int polledCount;

        Loader(Map<String, byte[]> classes, boolean poll) {
            super(RealClassesCheck.class.getClassLoader());
            this.classes = classes;
            this.poll = poll;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                byte[] bytes = classes.get(name.replace('.', '/'));
                if (bytes == null || name.startsWith("java.")) {
                    return super.loadClass(name, resolve);
                }
                if (poll) {
                    byte[] polled = PreemptionPolls.instrument(bytes);
                    if (polled != null) {
                        polledCount++;
                        bytes = polled;
                    }
                }
                return defineClass(name, bytes, 0, bytes.length);
            }
        }
    }
}
