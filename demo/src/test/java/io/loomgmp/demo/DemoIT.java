package io.loomgmp.demo;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Smoke test of the README's first command, {@code ./loomgmp demo}, with {@code --small}: every
 * section and row is there with figures that make sense, each JVM ran on the scheduler its column
 * names, and bad arguments are refused. The bounds are loose (a loaded 2-core machine): they
 * catch a demo that measures nothing or the wrong thing, not a slow scheduler.
 */
class DemoIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root"));
    private static final boolean LINUX = System.getProperty("os.name").startsWith("Linux");

    private static Run demo;

    record Run(int exitCode, String stdout, String stderr) {
    }

    @BeforeAll
    static void runTheDemo() throws Exception {
        demo = run(5, "bash", ROOT.resolve("loomgmp").toString(), "demo", "--small");
        assertEquals(0, demo.exitCode(), demo.stdout() + demo.stderr());
    }

    @Test
    void theSaturatedServerSectionGivesThroughputCpuPerRequestAndTheTail() {
        String section = section("1. A saturated server");
        double[] rate = positive(section, "requests per second");
        double[] cpu = positive(section, "CPU per request (ms)");
        double[] p50 = positive(section, "latency p50 (ms)");
        double[] p99 = positive(section, "latency p99 (ms)");
        double[] longest = positive(section, "longest wait (ms)");
        double[] cores = positive(section, "cores busy");
        int processors = Runtime.getRuntime().availableProcessors();
        for (int s = 0; s < 2; s++) {
            // Each request burns 1 ms of CPU as calibrated on this machine's fastest run: no answer comes
            // sooner than about that, and none costs less CPU (the bounds allow for frequency scaling).
            assertTrue(p50[s] > 0.5 && cpu[s] > 0.5 && cpu[s] < 50, section);
            assertTrue(p50[s] <= p99[s] && p99[s] <= longest[s], "p50 <= p99 <= longest wait\n" + section);
            assertTrue(cores[s] <= processors * 1.1 + 0.1, "no more cores busy than there are\n" + section);
            // Requests per second times CPU per request is the CPU busy, within the figures' rounding.
            assertTrue(Math.abs(rate[s] * cpu[s] / 1_000 - cores[s]) < 0.1 * cores[s] + 0.05,
                    "requests/s x CPU/request = cores busy\n" + section);
        }
        String[] unanswered = cells(section, "connections with no answer in 1.5 s");
        assertEquals(3, unanswered.length, section);
        for (int s = 0; s < 2; s++) {
            assertTrue(unanswered[s].matches("\\d+") && Integer.parseInt(unanswered[s]) <= 50 * processors, section);
        }
        assertTrue(section.contains("carriers: GMP gmp-M*, FJP ForkJoinPool-1-worker-*"), section);
    }

    @Test
    void theShortBesideLongSectionShowsBothClassesOnBothSchedulers() {
        String section = section("2. Short work beside long work");
        double[] shortAnswers = figures(section, "short requests: answered", 3);
        double[] longAnswers = figures(section, "long requests: answered", 3);
        double[] cores = positive(section, "cores busy");
        assertTrue(cores[0] <= Runtime.getRuntime().availableProcessors() * 1.1 + 0.1
                && cores[1] <= Runtime.getRuntime().availableProcessors() * 1.1 + 0.1, section);
        String[] shortP99 = cells(section, "short requests: latency p99 (ms)");
        String[] longP99 = cells(section, "long requests: latency p99 (ms)");
        for (double[] answers : List.of(shortAnswers, longAnswers)) {
            if (answers[1] > 0) {
                assertRatio(answers[0], answers[1], answers[2], section);
            }
        }
        double[] shortLongest = positive(section, "short requests: longest wait (ms)");
        double[] shortUnanswered = figures(section, "short connections with no answer", 3);
        int shortConnections = 16 * Runtime.getRuntime().availableProcessors();
        for (int s = 0; s < 2; s++) {
            assertTrue(shortAnswers[s] + longAnswers[s] > 0, "each server answered something\n" + section);
            assertTrue(shortAnswers[s] == 0 || number(shortP99[s]) <= shortLongest[s], "p99 <= longest wait\n" + section);
            assertTrue(shortUnanswered[s] >= 0 && shortUnanswered[s] <= shortConnections
                    && (shortUnanswered[s] < shortConnections || shortAnswers[s] == 0), section);
            // A class may starve in the small window (that is a result), but then it has no latency.
            assertLatency(shortAnswers[s], shortP99[s], 0.05, section);
            assertLatency(longAnswers[s], longP99[s], 50, section);
        }
        assertTrue(section.contains("carriers: GMP gmp-M*, FJP ForkJoinPool-1-worker-*"), section);
    }

    /** "none" exactly when nothing was answered; else at least {@code floorMillis} (half the request's CPU). */
    private static void assertLatency(double answers, String p99, double floorMillis, String section) {
        if (answers == 0) {
            assertEquals("none", p99, section);
        } else {
            assertTrue(number(p99) >= floorMillis, p99 + " ms is less than the request's CPU\n" + section);
        }
    }

    @Test
    void thePinnedSectionGivesEachProbe() {
        String section = section("3. Every carrier taken");
        List<String> pinned = LINUX ? List.of("pinned in a class initialiser: new thread (ms)",
                "blocked reading a FIFO: new thread (ms)") : List.of("pinned in a class initialiser: new thread (ms)");
        for (String row : pinned) {
            positive(section, row);
        }
        if (!LINUX) {
            assertTrue(section.contains("(no FIFO row"), section);
        }
        // Beside the hogs: a figure or "starved" (the bounds are SysmonAcceptanceIT's to check).
        for (String row : List.of("4 CPU hogs per core: sleep(1) late by (ms)", "4 CPU hogs per core: new thread (ms)")) {
            String[] cells = cells(section, row);
            assertEquals(3, cells.length, row + "\n" + section);
            for (int s = 0; s < 2; s++) {
                assertTrue(cells[s].equals("starved") || number(cells[s]) >= 0, row + "\n" + section);
            }
            assertTrue(cells[2].equals("-") == (cells[0].equals("starved") || cells[1].equals("starved")), section);
        }
    }

    @Test
    void theHandOffSectionHasGmpAndFjpAndNamesTheAgentsShare() {
        String section = section("4. Hand-off cost");
        assertTrue(section.lines().anyMatch(l -> l.trim().matches("GMP +FJP +GMP/FJP")), section);
        for (String row : List.of("ping-pong round trip (ns)", "fan-out of 10,000 virtual threads (ms)")) {
            double[] figures = figures(section, row, 3);
            for (int c = 0; c < 2; c++) {
                assertTrue(figures[c] > 0, row + "\n" + section);
            }
            assertRatio(figures[0], figures[1], figures[2], section);
        }
        assertTrue(section.contains("Part of GMP's cost here is the agent's") && section.contains("JVMTI"),
                "says what part of the cost is the agent's\n" + section);
    }

    @Test
    void everyRowIsExplainedAndTheDemoSaysHowLongItTook() {
        String[] lines = demo.stdout().split("\n");
        int rows = 0;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].matches("\\S.*\\S {2,}\\S.*")) { // a label, then figures in columns
                rows++;
                assertTrue(i + 1 < lines.length && lines[i + 1].startsWith("      ") && !lines[i + 1].isBlank(),
                        "no explanation under '" + lines[i] + "'\n" + demo.stdout());
            }
        }
        assertEquals(LINUX ? 20 : 19, rows, "rows with figures\n" + demo.stdout());
        Matcher took = Pattern.compile("(?m)^The demo took (\\d+\\.\\d) s\\.$").matcher(demo.stdout());
        assertTrue(took.find() && Double.parseDouble(took.group(1)) > 1, demo.stdout());
        assertTrue(demo.stderr().contains("loom-gmp demo: saturated server on GMP")
                && demo.stderr().contains("loom-gmp demo: hand-off workloads on FJP"), "progress on stderr\n" + demo.stderr());
    }

    @Test
    void badArgumentsAreAUsageErrorWithStatus2AndHelpIsNot() throws Exception {
        Run bogus = run(1, "bash", ROOT.resolve("loomgmp").toString(), "demo", "--bogus");
        assertEquals(2, bogus.exitCode(), bogus.toString());
        assertTrue(bogus.stderr().contains("--bogus"), bogus.stderr());
        assertEquals("", bogus.stdout());

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String jar = ROOT.resolve("demo/target/loom-gmp-demo.jar").toString();
        String agent = ROOT.resolve("loom-bridge/target/loom-gmp-agent.jar").toString();
        Run direct = run(1, java, "-jar", jar, "--agent", agent, "--small", "--frobnicate");
        assertEquals(2, direct.exitCode(), direct.toString());
        assertTrue(direct.stderr().contains("unknown argument '--frobnicate'") && direct.stderr().contains("usage:"),
                direct.stderr());
        Run noAgent = run(1, java, "-jar", jar, "--agent", ROOT.resolve("no-such.jar").toString());
        assertEquals(2, noAgent.exitCode(), noAgent.toString());
        assertTrue(noAgent.stderr().contains("no agent jar at"), noAgent.stderr());

        Run help = run(1, java, "-jar", jar, "--help");
        assertEquals(0, help.exitCode(), help.toString());
        assertTrue(help.stdout().startsWith("usage: ./loomgmp demo [--small]"), help.stdout());
    }

    // ------------------------------------------------------------------------------- helpers

    private static Run run(int minutes, String... command) throws Exception {
        Path out = Files.createTempFile("demo", ".out");
        Path err = Files.createTempFile("demo", ".err");
        try {
            Process process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                fail(String.join(" ", command) + " did not finish in " + minutes + " min\n" + Files.readString(err));
            }
            return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** The section whose title starts with {@code title}, up to the next title (a line starting with a digit). */
    private static String section(String title) {
        String stdout = demo.stdout();
        int start = stdout.indexOf("\n" + title);
        assertTrue(start >= 0, "no section '" + title + "'\n" + stdout);
        Matcher next = Pattern.compile("\n\\d\\. |\nThe demo took").matcher(stdout);
        int end = next.find(start + 1) ? next.start() : stdout.length();
        return stdout.substring(start + 1, end);
    }

    /** The cells after a row's label: figures, "none", "starved", "-". */
    private static String[] cells(String section, String label) {
        String line = section.lines().filter(l -> l.startsWith(label + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no row '" + label + "' in\n" + section));
        return line.substring(label.length()).trim().split("\\s+");
    }

    /** A row's figures, {@code count} of them, each a number ("-", no ratio: NaN). */
    private static double[] figures(String section, String label, int count) {
        String[] cells = cells(section, label);
        assertEquals(count, cells.length, label + ": " + Arrays.toString(cells) + "\n" + section);
        double[] figures = new double[count];
        for (int i = 0; i < count; i++) {
            figures[i] = cells[i].equals("-") ? Double.NaN : number(cells[i]);
        }
        return figures;
    }

    /** A GMP, FJP, GMP/FJP row: both figures positive and the ratio theirs. */
    private static double[] positive(String section, String label) {
        String[] cells = cells(section, label);
        double[] figures = new double[cells.length];
        for (int i = 0; i < cells.length; i++) {
            figures[i] = number(cells[i]);
        }
        assertTrue(figures.length >= 2 && figures[0] > 0 && figures[1] > 0, label + "\n" + section);
        if (figures.length == 3) {
            assertRatio(figures[0], figures[1], figures[2], section);
        }
        return figures;
    }

    /** The printed ratio is a / b, within the rounding of three printed figures. */
    private static void assertRatio(double a, double b, double ratio, String section) {
        assertTrue(Math.abs(a / b - ratio) <= 0.02 * ratio + 0.01, a + " / " + b + " is not " + ratio + "\n" + section);
    }

    private static double number(String cell) {
        try {
            return Double.parseDouble(cell.replace(",", ""));
        } catch (NumberFormatException e) {
            throw new AssertionError("not a figure: '" + cell + "'\n" + demo.stdout());
        }
    }
}
