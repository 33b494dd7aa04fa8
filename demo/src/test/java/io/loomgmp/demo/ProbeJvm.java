package io.loomgmp.demo;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs a probe's {@code main} in a JVM of its own, with the loom-gmp agent (every virtual thread on
 * GMP) or without it (the JDK's ForkJoinPool), and reads its {@code key=value} lines.
 */
final class ProbeJvm {
    static final Path ROOT = Path.of(System.getProperty("loomgmp.root"));
    static final Path AGENT = ROOT.resolve("loom-bridge/target/loom-gmp-agent.jar");
    private static final long FORK_BOUND_SECONDS = 120;

    private ProbeJvm() {
    }

    /** A probe's output: {@code key=value} lines. */
    record Run(List<String> command, int exit, String stdout, String stderr) {
        String value(String key) {
            return stdout.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                    .findFirst().orElseThrow(() -> new AssertionError("no " + key + "=... in\n" + this));
        }

        long longValue(String key) {
            return Long.parseLong(value(key));
        }

        @Override
        public String toString() {
            return command + "\nexit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    /** Under the agent. */
    static Run gmp(List<String> jvmArgs, Class<?> main, String... args) throws Exception {
        assertTrue(Files.isRegularFile(AGENT), "no agent jar at " + AGENT);
        List<String> withAgent = new ArrayList<>();
        withAgent.add("-javaagent:" + AGENT);
        withAgent.addAll(jvmArgs);
        return run(withAgent, main, args);
    }

    /** Without the agent: the JDK's ForkJoinPool. */
    static Run forkJoinPool(List<String> jvmArgs, Class<?> main, String... args) throws Exception {
        return run(jvmArgs, main, args);
    }

    /** Runs the probe to completion (exit 0 within {@value #FORK_BOUND_SECONDS} s, else the test fails). */
    private static Run run(List<String> jvmArgs, Class<?> main, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        File out = Files.createTempFile("probe", ".out").toFile();
        File err = Files.createTempFile("probe", ".err").toFile();
        try {
            Process process = new ProcessBuilder(command).redirectOutput(out).redirectError(err).start();
            if (!process.waitFor(FORK_BOUND_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("probe did not finish in " + FORK_BOUND_SECONDS + " s: " + command + "\n" + Files.readString(err.toPath()));
            }
            Run run = new Run(command, process.exitValue(), Files.readString(out.toPath()), Files.readString(err.toPath()));
            assertEquals(0, run.exit(), run.toString());
            System.out.println(main.getSimpleName() + " " + String.join(" ", args) + " ("
                    + (jvmArgs.stream().anyMatch(a -> a.startsWith("-javaagent:")) ? "GMP" : "ForkJoinPool") + "): "
                    + run.stdout().lines().toList());
            return run;
        } finally {
            Files.deleteIfExists(out.toPath());
            Files.deleteIfExists(err.toPath());
        }
    }
}
