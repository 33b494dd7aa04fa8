package io.loomgmp.benchmarks.saturation;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

/**
 * A saturation server JVM ({@link SaturationServer}) as the runner sees it: started with or
 * without the agent, its ports and calibration read from its {@code LISTENING} line, its stats
 * read from its stats port, and stopped by closing its standard input.
 */
final class ServerProcess implements AutoCloseable {
    static final Duration START_LIMIT = Duration.ofSeconds(60);
    /** A stats read answers within a time slice (a platform thread); longer means the server is stuck. */
    static final int STATS_TIMEOUT_MILLIS = 10_000;

    private final LoggedProcess process;
    private final int port;
    private final int statsPort;
    private final String scheduler;
    private final double stepsPerMicro;

    private ServerProcess(LoggedProcess process, Map<String, String> ready) {
        this.process = process;
        this.port = Integer.parseInt(ready.get("port"));
        this.statsPort = Integer.parseInt(ready.get("stats_port"));
        this.scheduler = ready.get("scheduler");
        this.stepsPerMicro = Double.parseDouble(ready.get("steps_per_us"));
    }

    /**
     * The server JVM's command line: with {@code -javaagent:<agent>} when an agent is given, and
     * then that jar first on the class path too. The benchmarks jar bundles loom-gmp's classes
     * (the JMH benchmarks need them), and the JVM appends an agent's jar to the end of the class
     * path: without this, the benchmarks jar's copies would run whatever agent was named, and
     * {@code --agent OTHER.jar} would measure this checkout's scheduler under another name.
     */
    static List<String> command(Path java, String classPath, Optional<Path> agent, String server, OptionalDouble stepsPerMicro) {
        List<String> command = new ArrayList<>(List.of(java.toString()));
        agent.ifPresent(jar -> command.add("-javaagent:" + jar.toAbsolutePath()));
        String serverClassPath = agent.map(jar -> jar.toAbsolutePath() + File.pathSeparator + classPath).orElse(classPath);
        // ServerStats reads the process CPU clock through the foreign-function API.
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", serverClassPath, SaturationServer.class.getName(), server));
        stepsPerMicro.ifPresent(steps -> command.addAll(List.of("--steps-per-us", Double.toString(steps))));
        return command;
    }

    /**
     * Starts the server and waits for its {@code LISTENING} line.
     *
     * @throws IOException if it did not print one (its log says why)
     */
    static ServerProcess start(List<String> command, Path log) throws IOException, InterruptedException {
        LoggedProcess process = LoggedProcess.start(command, log);
        Optional<String> ready = process.awaitLine(line -> line.startsWith(SaturationServer.READY + " "), START_LIMIT);
        if (ready.isEmpty()) {
            process.close();
            throw new IOException("the server did not start (no " + SaturationServer.READY + " line within "
                    + START_LIMIT.toSeconds() + " s); the end of its output (" + log + "):\n" + tail(process.output(), 20));
        }
        Map<String, String> fields = new HashMap<>();
        for (String pair : ready.get().substring(SaturationServer.READY.length()).trim().split(" +")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return new ServerProcess(process, fields);
    }

    int port() {
        return port;
    }

    /** What the server's virtual threads ran on at start-up: gmp, fjp or other. */
    String scheduler() {
        return scheduler;
    }

    double stepsPerMicro() {
        return stepsPerMicro;
    }

    long pid() {
        return process.process().pid();
    }

    /** One reading of the server's stats, from its stats port (a new connection each time: reads are rare). */
    ServerStats.Snapshot stats() throws IOException {
        try (HttpConnection connection = HttpConnection.open(statsPort, STATS_TIMEOUT_MILLIS)) {
            HttpConnection.Response response = connection.get("/stats");
            if (response.status() != 200) {
                throw new IOException("the stats port answered " + response.status() + ": " + response.body());
            }
            return ServerStats.Snapshot.parse(response.body());
        }
    }

    /**
     * Waits until the server handles no request (those a stopped load generator left behind),
     * {@code limit} at most.
     *
     * @return how long it took, or empty if requests were still running at the limit
     */
    Optional<Duration> awaitIdle(Duration limit) throws IOException, InterruptedException {
        long start = System.nanoTime();
        while (true) {
            if (stats().inflight() == 0) {
                return Optional.of(Duration.ofNanos(System.nanoTime() - start));
            }
            if (System.nanoTime() - start > limit.toNanos()) {
                return Optional.empty();
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** The server's output so far. */
    String output() {
        return process.output();
    }

    static String tail(String output, int lines) {
        List<String> all = output.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /** Closes the server's standard input, which makes it exit; destroys it if it has not after 10 s. */
    @Override
    public void close() throws InterruptedException {
        try {
            process.process().getOutputStream().close();
        } catch (IOException e) {
            // it has exited already
        }
        if (!process.process().waitFor(10, TimeUnit.SECONDS)) {
            System.err.println("saturation: the server (pid " + pid() + ") did not exit 10 s after its input closed; destroying it");
        }
        process.close();
    }
}
