import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The start-up benchmark behind {@code benchmarks/startup/run.sh}: starts a program N times in
 * each configuration (without the agent, with it, and with it but {@code preempt=false}, which
 * tells the cost of the preemption polls from the rest of the agent) and prints the median, the
 * interquartile range and the min–max of each, and the agent's difference from no agent.
 * <ul>
 *   <li><b>server</b>: a web application jar; the time from process start to the first
 *       {@code 200} answer to {@code GET /} (the harness polls the port every 5 ms), and the CPU
 *       time the process had used by then ({@code /proc} through {@link ProcessHandle.Info}).</li>
 *   <li><b>trivial</b>: a main that starts one virtual thread and joins it; the wall time until
 *       the process exited, and its CPU time (user + system, reported by the shell that waited for
 *       it: {@code times}).</li>
 * </ul>
 * The configurations take turns run by run (not one block after another), so that a load that
 * comes and goes on a shared machine falls on all of them alike. One unmeasured run of each comes
 * first: it fills the page cache.
 *
 * <p>Usage: {@code java StartupBench.java --java JAVA --agent AGENT.jar --runs N
 * [--baseline OTHER-AGENT.jar] [--server APP.jar] [--trivial CLASSPATH] [--logs DIR]}
 */
public final class StartupBench {
    private static final Duration SERVER_TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern TIMES_LINE = Pattern.compile("(\\d+)m([\\d.]+)s (\\d+)m([\\d.]+)s");

    /** One way of starting the JVM: the extra options before the program's own arguments. */
    record Config(String name, List<String> jvmOptions) {
    }

    /** One start: wall and CPU time in milliseconds. */
    record Sample(double wallMillis, double cpuMillis) {
    }

    private final String java;
    private final int runs;
    private final List<Config> configs;
    private final Path logDir;

    private StartupBench(String java, int runs, List<Config> configs, Path logDir) {
        this.java = java;
        this.runs = runs;
        this.configs = configs;
        this.logDir = logDir;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        String java = required(options, "--java");
        String agent = required(options, "--agent");
        int runs = Integer.parseInt(options.getOrDefault("--runs", "10"));
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be at least 1");
        }
        List<Config> configs = new ArrayList<>(List.of(
                new Config("without agent", List.of()),
                new Config("with agent", List.of("-javaagent:" + agent)),
                new Config("with agent, preempt=false", List.of("-javaagent:" + agent + "=preempt=false"))));
        if (options.containsKey("--baseline")) { // another build of the agent, e.g. before a change
            configs.add(new Config("with baseline agent", List.of("-javaagent:" + options.get("--baseline"))));
        }
        Path logDir = Files.createDirectories(Path.of(options.getOrDefault("--logs", "target/startup-logs")));
        StartupBench bench = new StartupBench(java, runs, configs, logDir);

        System.out.printf("start-up: %d runs per configuration, interleaved; %d CPUs; JDK %s%n", runs,
                Runtime.getRuntime().availableProcessors(), jdkVersion(java));
        if (options.containsKey("--server")) {
            Map<Config, List<Sample>> server = bench.measure("server", config -> bench.serverStart(config,
                    List.of("-jar", options.get("--server"))));
            print("web application (" + Path.of(options.get("--server")).getFileName()
                    + "): process start to first answer of GET /", server);
        }
        if (options.containsKey("--trivial")) {
            Map<Config, List<Sample>> trivial = bench.measure("trivial", config -> bench.trivialRun(config,
                    List.of("-cp", options.get("--trivial"), "TrivialMain")));
            print("trivial main (one virtual thread started and joined): process start to exit", trivial);
        }
    }

    @FunctionalInterface
    interface Start {
        Sample run(Config config) throws Exception;
    }

    private Map<Config, List<Sample>> measure(String what, Start start) throws Exception {
        Map<Config, List<Sample>> samples = new LinkedHashMap<>();
        for (Config config : configs) {
            start.run(config); // warm-up: page cache, not measured
            samples.put(config, new ArrayList<>());
        }
        for (int run = 1; run <= runs; run++) {
            StringBuilder progress = new StringBuilder(String.format("%s run %d/%d:", what, run, runs));
            for (Config config : configs) {
                Sample sample = start.run(config);
                samples.get(config).add(sample);
                progress.append(String.format("  %s %.0f ms", config.name(), sample.wallMillis()));
            }
            System.err.println(progress);
        }
        return samples;
    }

    /** Starts the server, polls its port until it answers 200, then stops it. */
    private Sample serverStart(Config config, List<String> program) throws Exception {
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(config.jvmOptions());
        command.addAll(program);
        command.add("--server.port=" + port);
        Path log = logDir.resolve("server-" + slug(config) + ".log");
        long started = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            while (!answers(port)) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the server exited with " + process.exitValue()
                            + " before answering; its output: " + log);
                }
                if (System.nanoTime() - started > SERVER_TIMEOUT.toNanos()) {
                    throw new IllegalStateException("the server did not answer within " + SERVER_TIMEOUT + "; its output: " + log);
                }
                Thread.sleep(5);
            }
            double wall = (System.nanoTime() - started) / 1e6;
            Duration cpu = process.info().totalCpuDuration()
                    .orElseThrow(() -> new IllegalStateException("no CPU time for the server process"));
            return new Sample(wall, cpu.toNanos() / 1e6);
        } finally {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    /** Runs the program to its end under a shell whose {@code times} reports its CPU time. */
    private Sample trivialRun(Config config, List<String> program) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", "-c",
                "\"$@\" >\"$LOG\" 2>&1 </dev/null; status=$?; times; exit $status", "bash", java));
        command.addAll(config.jvmOptions());
        command.addAll(program);
        Path log = logDir.resolve("trivial-" + slug(config) + ".log");
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("LOG", log.toString());
        long started = System.nanoTime();
        Process process = builder.redirectErrorStream(true).start();
        String times = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = process.waitFor();
        double wall = (System.nanoTime() - started) / 1e6;
        if (status != 0) {
            throw new IllegalStateException("the trivial main exited with " + status + "; its output: " + log);
        }
        // times prints the shell's own user and system time, then its children's.
        String[] lines = times.strip().split("\n");
        Matcher children = TIMES_LINE.matcher(lines[lines.length - 1]);
        if (!children.matches()) {
            throw new IllegalStateException("unexpected output of times: " + times);
        }
        double cpu = (seconds(children.group(1), children.group(2)) + seconds(children.group(3), children.group(4))) * 1000;
        return new Sample(wall, cpu);
    }

    private static double seconds(String minutes, String seconds) {
        return Integer.parseInt(minutes) * 60 + Double.parseDouble(seconds);
    }

    /** Whether the server answers {@code GET /} with 200 now. */
    private static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] status = in.readNBytes(12); // "HTTP/1.1 200"
            return new String(status, StandardCharsets.US_ASCII).endsWith(" 200");
        } catch (IOException notYet) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void print(String title, Map<Config, List<Sample>> samples) {
        System.out.println();
        System.out.println(title);
        System.out.printf("  %-28s %-5s %11s %13s %13s%n", "(ms)", "", "median", "IQR", "min-max");
        Map<Config, double[]> wall = new LinkedHashMap<>();
        Map<Config, double[]> cpu = new LinkedHashMap<>();
        samples.forEach((config, list) -> {
            wall.put(config, list.stream().mapToDouble(Sample::wallMillis).sorted().toArray());
            cpu.put(config, list.stream().mapToDouble(Sample::cpuMillis).sorted().toArray());
        });
        for (var kind : List.of(Map.entry("wall", wall), Map.entry("CPU", cpu))) {
            for (var entry : kind.getValue().entrySet()) {
                double[] s = entry.getValue();
                System.out.printf("  %-28s %-5s %11.0f %13s %13s%n", entry.getKey().name(), kind.getKey(), quantile(s, 0.5),
                        range(quantile(s, 0.25), quantile(s, 0.75)), range(s[0], s[s.length - 1]));
            }
        }
        double[] base = wall.values().iterator().next();
        double[] baseCpu = cpu.values().iterator().next();
        for (Config config : samples.keySet()) {
            if (wall.get(config) == base) {
                continue;
            }
            double dWall = quantile(wall.get(config), 0.5) - quantile(base, 0.5);
            double dCpu = quantile(cpu.get(config), 0.5) - quantile(baseCpu, 0.5);
            System.out.printf("  %s - without agent (medians): wall %+.0f ms (%+.0f %%), CPU %+.0f ms (%+.0f %%)%n",
                    config.name(), dWall, 100 * dWall / quantile(base, 0.5), dCpu, 100 * dCpu / quantile(baseCpu, 0.5));
        }
    }

    private static String range(double low, double high) {
        return String.format("%.0f-%.0f", low, high);
    }

    /** The q-quantile of sorted values, linearly interpolated between the closest ranks. */
    static double quantile(double[] sorted, double q) {
        double position = q * (sorted.length - 1);
        int below = (int) Math.floor(position);
        int above = Math.min(below + 1, sorted.length - 1);
        return sorted[below] + (position - below) * (sorted[above] - sorted[below]);
    }

    private static String jdkVersion(String java) throws Exception {
        Process process = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        Matcher version = Pattern.compile("build ([^,)]+)").matcher(out);
        return version.find() ? version.group(1) : out.lines().findFirst().orElse("?");
    }

    private static String slug(Config config) {
        return config.name().replaceAll("[^A-Za-z0-9]+", "-");
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + Arrays.toString(args));
            }
            options.put(args[i], args[i + 1]);
        }
        return options;
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }
}
