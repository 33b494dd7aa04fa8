package io.loomgmp.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How the launcher runs the programs it stands for: in its place, or as a child it waits for.
 *
 * <p>In its place ({@link #replaceWith}): the command that ends with the application, the trace
 * viewer, the soak or a benchmark leaves it to the {@code loomgmp} script, which {@code exec}s it.
 * The launcher writes the command line, NUL-separated, into the file the script names in
 * {@value #EXEC_FILE} and exits; the script runs it as its own process. So the program gets the
 * terminal, the signals and the process id that {@code ./loomgmp} had (a pid printed by
 * {@code ./loomgmp run ... &} is the application's, for {@code ./loomgmp top}), and its status is
 * the script's, with no JVM left waiting beside it. Without {@value #EXEC_FILE} ({@code java -jar
 * loom-gmp-launcher.jar ...}), the program runs as a child and the launcher exits with its status.
 *
 * <p>As a child ({@link #run}): when the launcher has something to do after it (the AOT training
 * run, whose cache it checks; Maven, whose skipped tests it lists). The child inherits standard
 * input, output and error. Ctrl-C reaches both (one process group): the launcher's shutdown hook
 * then waits for the child to end, so that the shell's prompt comes back after it; a TERM sent to
 * the launcher alone is passed on to the child.
 */
final class Processes {
    /** The environment variable by which the script asks for the command to exec. */
    static final String EXEC_FILE = "LOOMGMP_EXEC_FILE";

    /**
     * The variables by which {@code java} takes options from the environment. The script keeps
     * the caller's from the launcher's own JVM and passes them renamed ({@value #CALLERS_PREFIX});
     * the launcher's children get them back under their own names.
     */
    static final List<String> CALLERS_JAVA_VARIABLES = List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS");
    private static final String CALLERS_PREFIX = "LOOMGMP_CALLERS_";

    private static volatile Process child; // the one child running now, for the shutdown hook

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Processes::stopChild, "loomgmp-child-stopper"));
    }

    private Processes() {
    }

    /**
     * Ends the launcher with {@code command} in its place (run from the caller's directory, with
     * the caller's environment plus {@code env}). Never returns normally: returns the {@link Stop}
     * to throw, which exits with the status the script or the child gives.
     */
    static Stop replaceWith(List<String> command, Map<String, String> env) {
        String execFile = System.getenv(EXEC_FILE);
        if (execFile != null && env.isEmpty()) {
            StringBuilder nulSeparated = new StringBuilder();
            for (String arg : command) {
                nulSeparated.append(arg).append('\0');
            }
            try {
                Files.writeString(Path.of(execFile), nulSeparated, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new Stop(1, "cannot hand the command to the loomgmp script (" + execFile + "): " + e.getMessage());
            }
            return Stop.with(0);
        }
        return Stop.with(run(command, null, env));
    }

    static Stop replaceWith(List<String> command) {
        return replaceWith(command, Map.of());
    }

    /**
     * Runs {@code command} in {@code dir} (null: the caller's directory) with standard streams
     * inherited, and returns its exit status (128 + the signal's number when a signal ended it).
     */
    static int run(List<String> command, Path dir, Map<String, String> env) {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        if (dir != null) {
            builder.directory(dir.toFile());
        }
        builder.environment().remove(EXEC_FILE); // a launcher it starts runs its own children
        for (String name : CALLERS_JAVA_VARIABLES) {
            builder.environment().remove(CALLERS_PREFIX + name);
            String value = callers(name);
            if (value != null) {
                builder.environment().put(name, value);
            }
        }
        builder.environment().putAll(env);
        try {
            Process started = builder.start();
            child = started;
            try {
                return started.waitFor();
            } finally {
                child = null;
            }
        } catch (IOException e) {
            throw new Stop(1, "cannot run " + command.getFirst() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Stop(1, "interrupted while " + command.getFirst() + " ran");
        }
    }

    /** The shutdown hook: a child still running when the launcher is told to stop is stopped too, and waited for. */
    private static void stopChild() {
        Process running = child;
        if (running == null) {
            return;
        }
        try {
            // After Ctrl-C the child has the signal too: give it the time to finish on its own.
            if (!running.waitFor(2, TimeUnit.SECONDS)) {
                running.destroy();
                if (!running.waitFor(10, TimeUnit.SECONDS)) {
                    running.destroyForcibly();
                }
            }
        } catch (InterruptedException e) {
            running.destroyForcibly();
        }
    }

    /**
     * The caller's {@code name} (one of {@link #CALLERS_JAVA_VARIABLES}), or null when it is not
     * set: as the script passed it on, or from the environment when the jar runs without the script.
     */
    static String callers(String name) {
        return System.getenv("LOOMGMP_SCRIPT") != null ? System.getenv(CALLERS_PREFIX + name) : System.getenv(name);
    }

    /** The path of {@code name} on the PATH, as {@code command -v} finds it, or null. */
    static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** {@code command}'s standard output and error together, or null when it cannot run; for short queries. */
    static String output(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor();
            return out;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The java of the JDK the launcher runs on: the JDK 25 the script found. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
