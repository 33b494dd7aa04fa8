package io.loomgmp.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A process the tests start and wait for: a JVM of the running JDK ({@link #java(List)}), of another
 * JDK ({@link #java(Path, List)}), or any command, such as a script that starts one
 * ({@link #command(List)}). {@link #run()} waits for it within a bound ({@link #BOUND} unless
 * {@link #bound(Duration)} says otherwise) and returns its exit code, standard output and standard
 * error ({@link Forked}). A process still running at the bound is killed with every process it
 * started, and the test fails with an {@link AssertionError} that shows what it had printed: a
 * forked JVM that hangs never hangs the build.
 *
 * <p>{@code JAVA_TOOL_OPTIONS}, {@code JDK_JAVA_OPTIONS} and {@code _JAVA_OPTIONS} do not reach the
 * process: many CI images set them, and a JVM that picks one up says so on standard error (which
 * the tests read) and runs with options that change what they check. A variable set with
 * {@link #environment(String, String)} does, even one of these.
 *
 * <p>{@code LOOMGMP_TEST_JVM_OPTIONS} (whitespace-separated) goes first into every JVM started with
 * {@link #java}: how the suite is run with JVM flags a user may add, e.g. {@code ./loomgmp run
 * --fast}'s (CONTRIBUTING.md). Tests that compare a JVM's whole standard error then see the lines
 * such flags make the JVM or the agent print.
 */
public final class Fork {
    /** How long a process may run unless {@link #bound(Duration)} says otherwise. */
    public static final Duration BOUND = Duration.ofSeconds(120);
    /** The environment variables a JVM reads options from: removed from the process's environment. */
    public static final List<String> JVM_OPTIONS_VARIABLES = List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS");
    /** Options for every JVM the tests start: see the class comment. */
    public static final String TEST_JVM_OPTIONS_VARIABLE = "LOOMGMP_TEST_JVM_OPTIONS";
    /** How long the killed processes may take to be gone. */
    private static final Duration KILL_BOUND = Duration.ofSeconds(30);

    private final List<String> command;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private Path directory;
    private Duration bound = BOUND;

    private Fork(List<String> command) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("no command");
        }
        this.command = List.copyOf(command);
    }

    /** {@code <java.home>/bin/java <arguments...>}: a JVM of the JDK that runs the tests. */
    public static Fork java(List<String> arguments) {
        return java(Path.of(Required.property("java.home")), arguments);
    }

    /** {@code <javaHome>/bin/java <arguments...>}: a JVM of another JDK. */
    public static Fork java(Path javaHome, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable(javaHome).toString());
        String options = System.getenv(TEST_JVM_OPTIONS_VARIABLE);
        if (options != null && !options.isBlank()) {
            command.addAll(List.of(options.strip().split("\\s+")));
        }
        command.addAll(arguments);
        return new Fork(command);
    }

    /** Any command, e.g. {@code bash <script> <arguments...>}. */
    public static Fork command(List<String> command) {
        return new Fork(command);
    }

    /** The {@code java} launcher of the JDK that runs the tests. */
    public static Path javaExecutable() {
        return javaExecutable(Path.of(Required.property("java.home")));
    }

    /** The {@code java} launcher of the JDK at {@code javaHome}. */
    public static Path javaExecutable(Path javaHome) {
        return javaHome.resolve("bin").resolve("java");
    }

    /** Sets a variable in the process's environment (set last: it may set one of {@link #JVM_OPTIONS_VARIABLES}). */
    public Fork environment(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /** Sets these variables in the process's environment, as {@link #environment(String, String)}. */
    public Fork environment(Map<String, String> variables) {
        environment.putAll(variables);
        return this;
    }

    /** The process's working directory (the tests' one unless set). */
    public Fork directory(Path directory) {
        this.directory = directory;
        return this;
    }

    /** How long the process may run before it is killed and the test fails. */
    public Fork bound(Duration bound) {
        if (bound.isNegative() || bound.isZero()) {
            throw new IllegalArgumentException("bound must be positive, was " + bound);
        }
        this.bound = bound;
        return this;
    }

    /**
     * Starts the process and waits for it within the bound.
     *
     * @return its exit code and what it printed
     * @throws AssertionError if it was still running at the bound (it and every process it started
     *         are then killed)
     * @throws IllegalStateException if it cannot be started
     */
    public Forked run() {
        Path out = null;
        Path err = null;
        Process process = null;
        try {
            out = Files.createTempFile("loomgmp-fork", ".out");
            err = Files.createTempFile("loomgmp-fork", ".err");
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            if (directory != null) {
                builder.directory(directory.toFile());
            }
            JVM_OPTIONS_VARIABLES.forEach(builder.environment()::remove);
            builder.environment().putAll(environment);
            process = builder.start();
            if (!process.waitFor(bound.toNanos(), TimeUnit.NANOSECONDS)) {
                List<Long> killed = killTree(process);
                throw new AssertionError(String.join(" ", command) + "\ndid not finish within " + describe(bound)
                        + ": killed, with the processes it started (pids " + killed + ")"
                        + "\n--- stdout\n" + read(out) + "--- stderr\n" + read(err));
            }
            return new Forked(command, process.exitValue(), read(out), read(err));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + command, e);
        } finally {
            // Whatever ended the wait (an interrupt, an error reading the output), nothing is left running.
            if (process != null && process.isAlive()) {
                killTree(process);
            }
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    /**
     * Kills {@code process} and the processes it started (SIGKILL on Unix), then waits, within
     * {@link #KILL_BOUND}, until they are gone.
     *
     * @return the pids killed: the process's first
     */
    static List<Long> killTree(Process process) {
        // The descendants are listed before their parent dies: once it does, they are another's.
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(process.toHandle());
        tree.addAll(process.descendants().toList());
        // The parent first, so that it starts no other process meanwhile.
        tree.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + KILL_BOUND.toNanos();
        for (ProcessHandle handle : tree) {
            try {
                handle.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                // Still there after SIGKILL and the bound: nothing more to do but say which (the pids are in the failure).
            }
        }
        return tree.stream().map(ProcessHandle::pid).toList();
    }

    /** The file as UTF-8, a malformed sequence replaced (a killed process may stop in the middle of a character). */
    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    }

    private static String describe(Duration bound) {
        return bound.toMillis() % 1000 == 0 ? bound.toSeconds() + " s" : bound.toMillis() + " ms";
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // A temporary file left behind is not the test's failure.
            }
        }
    }

    @Override
    public String toString() {
        return String.join(" ", command);
    }
}
