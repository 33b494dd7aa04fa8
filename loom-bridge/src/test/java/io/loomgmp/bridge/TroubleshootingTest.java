package io.loomgmp.bridge;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/troubleshooting.md has an entry for every error and warning line that the agent and the
 * scheduler and the metrics binder print (each string literal that starts such a line, as far as the literal goes) and
 * for every line the launcher prints before it fails or skips tests.
 */
class TroubleshootingTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path PAGE = ROOT.resolve("docs/troubleshooting.md");
    /** A Java string literal that starts a line the agent or the scheduler prints. */
    private static final Pattern JAVA_LINE = Pattern.compile(
            "\"((?:loom-gmp(?::| needs)|Scheduler failure|Exception in a task)(?:[^\"\\\\]|\\\\.)*)\"");

    @Test
    void everyLineTheAgentAndTheSchedulerPrintIsDocumented() throws IOException {
        Set<String> lines = new TreeSet<>();
        for (String module : List.of("loom-bridge", "dispatcher", "metrics")) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    Matcher m = JAVA_LINE.matcher(Files.readString(file));
                    while (m.find()) {
                        lines.add(fixedPart(unescape(m.group(1))));
                    }
                }
            }
        }
        assertTrue(lines.size() >= 20, "only " + lines.size() + " lines found: is the pattern still right? " + lines);
        assertEquals(List.of(), undocumented(lines), "lines the agent or the scheduler prints that docs/troubleshooting.md lacks");
    }

    /**
     * In the launcher's scripts, a line they print: {@code echo "loomgmp: ...} (the JDK lookup's
     * {@code loom-gmp: ...}); the text as far as the first shell expansion.
     */
    private static final Pattern SCRIPT_LINE = Pattern.compile("echo \"(loom-?gmp: )([^$\"`]*)");

    /**
     * In the launcher's Java, a line it prints as {@code loomgmp: ...}: {@code say("...")}, a
     * {@code Stop} or a usage error ({@code new UsageError("...")}, {@code usage("...")}) with its
     * message; the first string literal of the message, which every such line starts with.
     */
    private static final Pattern LAUNCHER_LINE = Pattern.compile(
            "(?:say\\(|new Stop\\(\\d+, |new UsageError\\(|usage\\()\"((?:[^\"\\\\]|\\\\.)*)\"");

    @Test
    void everyLineTheLauncherPrintsIsDocumented() throws IOException {
        Set<String> lines = new TreeSet<>();
        for (String script : List.of("loomgmp", ".mvn/find-jdk25.sh")) {
            for (String line : Files.readAllLines(ROOT.resolve(script))) {
                Matcher m = SCRIPT_LINE.matcher(line);
                if (m.find()) {
                    lines.add((m.group(1) + m.group(2)).stripTrailing());
                }
            }
        }
        try (Stream<Path> files = Files.walk(ROOT.resolve("launcher/src/main/java"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = LAUNCHER_LINE.matcher(Files.readString(file));
                while (m.find()) {
                    String literal = unescape(m.group(1));
                    if (!literal.isBlank()) { // a message that starts with a value, e.g. a path
                        lines.add(("loomgmp: " + literal).stripTrailing());
                    }
                }
            }
        }
        assertTrue(lines.size() >= 60, "only " + lines.size() + " lines found: is the pattern still right? " + lines);
        assertEquals(List.of(), undocumented(lines), "lines the launcher prints that docs/troubleshooting.md lacks");
    }

    /** The literal up to a format specifier: what every such line starts with, word for word. */
    private static String fixedPart(String literal) {
        int format = literal.indexOf('%');
        return format < 0 ? literal : literal.substring(0, format);
    }

    private static String unescape(String literal) {
        return literal.replace("\\\"", "\"").replace("\\'", "'").replace("\\\\", "\\");
    }

    static List<String> undocumented(Set<String> lines) throws IOException {
        String page = Files.readString(PAGE);
        List<String> missing = new ArrayList<>();
        for (String line : lines) {
            if (!page.contains(line)) {
                missing.add(line);
            }
        }
        return missing;
    }
}
