package io.loomgmp.soak;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The soak as users run it, {@code ./loomgmp soak}, on the jars this build made: for one minute
 * (CI's soak), then its help, its refusals of bad arguments, and its refusal of a JVM without
 * the agent. The minute's output streams to this test's output as it comes (a progress line
 * every 5 s), and its first line gives the seed to rerun it with.
 */
class SoakIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root")).toAbsolutePath().normalize();
    /**
     * The soak bounds itself (its watchdog ends a stuck run with the evidence); this only catches
     * a JVM that does not end: a minute, the warm-up, drains and rests at their bounds, close.
     */
    private static final long PROCESS_BOUND_MINUTES = 12;

    record Run(int exit, String output) {
    }

    @Test
    void aMinuteOfEverythingAtOnceKeepsEveryPromise() throws Exception {
        long seed = ThreadLocalRandom.current().nextLong();
        Run run = launcher(true, "soak", "--duration", "60s", "--seed", Long.toString(seed));
        assertFalse(run.output().contains("loomgmp: building"), "the jars this build made were rebuilt:\n" + run.output());
        assertEquals(0, run.exit(), "the soak failed (seed " + seed + "; rerun: ./loomgmp soak --duration 60s --seed "
                + seed + "; its whole output is above); its verdict:\n" + verdict(run.output()));
        assertTrue(run.output().contains("soak: seed " + seed + ", 1m after a 8s warm-up"), run.output());
        long progressLines = run.output().lines().filter(line -> line.startsWith("[soak ")).count();
        assertTrue(progressLines >= 10, progressLines + " progress lines in a minute, every 5 s expected");
        assertTrue(run.output().contains("\nchecks:\n"), "no summary");
        assertTrue(run.output().strip().endsWith("soak: PASSED"), verdict(run.output()));
    }

    @Test
    void helpListsTheOptionsAndTheChecks() throws Exception {
        Run run = launcher(false, "soak", "--help");
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().startsWith("usage: ./loomgmp soak [--duration D] [--seed N] [--max-procs N] [--progress D]"),
                run.output());
        assertTrue(run.output().contains("Exit status: 0 if every check held"), run.output());
    }

    @Test
    void badArgumentsAreRefusedWithTheReasonAndStatus2() throws Exception {
        Run badDuration = launcher(false, "soak", "--duration", "banana");
        assertEquals(2, badDuration.exit(), badDuration.output());
        assertTrue(badDuration.output().contains("soak: --duration takes a number and a unit (ms, s, m, h or d),"
                + " like 90s or 30m, was 'banana'"), badDuration.output());
        assertTrue(badDuration.output().contains("./loomgmp soak --help lists the options"), badDuration.output());

        Run tooShort = launcher(false, "soak", "--duration=5s");
        assertEquals(2, tooShort.exit(), tooShort.output());
        assertTrue(tooShort.output().contains("--duration must be from 10s to 7d, was '5s'"), tooShort.output());

        Run unknown = launcher(false, "soak", "--procs", "4");
        assertEquals(2, unknown.exit(), unknown.output());
        assertTrue(unknown.output().contains("soak: unknown option '--procs'"), unknown.output());
    }

    @Test
    void withoutTheAgentItRefusesToRunAndSaysHow() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Run run = run(false, List.of(java.toString(), "-jar", ROOT.resolve("soak/target/loom-gmp-soak.jar").toString(),
                "--duration", "10s"));
        assertEquals(2, run.exit(), run.output());
        assertTrue(run.output().contains("soak: cannot run: the loom-gmp agent is not loaded"), run.output());
        assertTrue(run.output().contains("./loomgmp soak"), run.output());
    }

    /** What the soak said, without its progress lines and the stacks of its evidence (the output above has them). */
    private static String verdict(String output) {
        return String.join("\n", output.lines()
                .filter(line -> !line.startsWith("[") && !line.startsWith("    ") && !line.startsWith("\"") && !line.isBlank())
                .toList());
    }

    private static Run launcher(boolean echo, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", ROOT.resolve("loomgmp").toString()));
        command.addAll(List.of(args));
        return run(echo, command);
    }

    /** Runs {@code command} from the checkout's root, output and errors together; with {@code echo}, each line is also printed as it comes. */
    private static Run run(boolean echo, List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        Thread reader = Thread.ofPlatform().name("soak-output").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (echo) {
                        System.out.println(line);
                    }
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                }
            } catch (IOException e) {
                synchronized (output) {
                    output.append("(reading the output failed: ").append(e).append(")\n");
                }
            }
        });
        if (!process.waitFor(PROCESS_BOUND_MINUTES, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            reader.join(10_000);
            fail(String.join(" ", command) + " did not end within " + PROCESS_BOUND_MINUTES + " minutes\n" + output);
        }
        reader.join(10_000);
        synchronized (output) {
            return new Run(process.exitValue(), output.toString());
        }
    }
}
