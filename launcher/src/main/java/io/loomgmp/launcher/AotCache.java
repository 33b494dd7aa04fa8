package io.loomgmp.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * {@code ./loomgmp run --aot FILE}: what a JDK 25 AOT cache was trained from, and whether this run
 * has the same ({@code FILE.inputs}, a line each).
 *
 * <p>JDK 25.0.3 itself runs the cached classes of a jar rebuilt since the training (seen with
 * {@code -Xlog:class+load}: "source: shared objects file"), so the launcher checks: the JDK, the
 * agent jar, every class path and module path entry with the SHA-256 of its contents (a
 * directory's: of every file in it), and the options that shape the module graph. The entries
 * come from the java arguments as {@code java} reads them ({@link JavaCommandLine}:
 * {@code JDK_JAVA_OPTIONS}, {@code @argfiles}, {@code -jar}, {@code CLASSPATH}).
 */
final class AotCache {
    private AotCache() {
    }

    /** The inputs of a run of {@code java}, one line each, the JDK first; relative entries from {@code dir}. */
    static List<String> inputs(Path agentJar, JavaCommandLine java, Path dir) throws IOException {
        Path home = Path.of(System.getProperty("java.home"));
        List<String> lines = new ArrayList<>();
        lines.add("JDK: " + home + " " + runtimeVersion(home));
        lines.add("agent jar " + agentJar + ": " + fingerprint(agentJar));
        for (String entry : java.classPath()) {
            lines.add("class path entry " + entry + ": " + entryFingerprint(dir.resolve(entry)));
        }
        for (String entry : java.modulePath()) {
            lines.add("module path entry " + entry + ": " + entryFingerprint(dir.resolve(entry)));
        }
        for (String option : java.moduleOptions()) {
            lines.add("java option: " + option);
        }
        return lines;
    }

    /** The first input that differs between a training's and this run's, in words; null when none does. */
    static String change(List<String> trained, List<String> now) {
        for (int i = 0; i < Math.max(trained.size(), now.size()); i++) {
            String was = i < trained.size() ? trained.get(i) : null;
            String is = i < now.size() ? now.get(i) : null;
            if (was != null && was.equals(is)) {
                continue;
            }
            if (was != null && is != null && key(was).equals(key(is))) {
                return "the " + key(was) + " changed since it was trained (was '" + value(was) + "', is '" + value(is) + "')";
            } else if (was != null) {
                return "it was trained with the " + key(was) + ", which this run does not have";
            } else {
                return "this run has the " + key(is) + ", which it was not trained with";
            }
        }
        return null;
    }

    private static String key(String line) {
        int at = line.indexOf(": ");
        return at < 0 ? line : line.substring(0, at);
    }

    private static String value(String line) {
        int at = line.indexOf(": ");
        return at < 0 ? "" : line.substring(at + 2);
    }

    /** JAVA_RUNTIME_VERSION from the JDK's release file: a JDK updated in place shows. */
    private static String runtimeVersion(Path home) {
        Properties release = new Properties();
        try (var in = Files.newBufferedReader(home.resolve("release"))) {
            release.load(in);
        } catch (IOException e) {
            return "";
        }
        return release.getProperty("JAVA_RUNTIME_VERSION", "").replace("\"", "");
    }

    private static String entryFingerprint(Path entry) throws IOException {
        if (Files.isRegularFile(entry)) {
            return fingerprint(entry);
        } else if (Files.isDirectory(entry)) {
            MessageDigest all = sha256();
            try (Stream<Path> files = Files.walk(entry)) {
                for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                    all.update((entry.relativize(file) + "\n" + fingerprint(file) + "\n").getBytes(StandardCharsets.UTF_8));
                }
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            return "directory " + HexFormat.of().formatHex(all.digest());
        }
        return "missing";
    }

    private static String fingerprint(Path file) throws IOException {
        return HexFormat.of().formatHex(sha256().digest(Files.readAllBytes(file)));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JDK has SHA-256", e);
        }
    }
}
