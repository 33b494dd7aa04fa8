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
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
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
 * each configuration and prints the median, the interquartile range and the min–max of each, and
 * the differences that matter: the agent's cost beyond no agent and beyond an empty agent.
 * <ul>
 *   <li><b>without agent</b>; <b>empty agent</b> ({@code -javaagent} of an agent whose premain does
 *       nothing: what any agent costs, mostly the JVM giving up its archived module graph);
 *       <b>with agent</b>; <b>with agent, preempt=false</b> (tells the cost of the preemption
 *       polls from the rest of the agent); <b>with baseline agent</b> (another build, e.g. from
 *       before a change), if given.</li>
 *   <li>With {@code --aot DIR}, the same under JDK 25's AOT cache (JEP 483/514): for each of no
 *       agent, the empty agent and the agent, a training run with {@code -XX:AOTCacheOutput=FILE}
 *       first (the server is made to exit once started: {@code -Dspring.context.exit=onRefresh}),
 *       then runs with {@code -XX:AOTCache=FILE}. A training run that fails (the JVM may refuse a
 *       cache with an agent) is reported with what the JVM said, and its configuration left out.</li>
 * </ul>
 * Two programs:
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
 * first: it fills the page cache. With {@code --results DIR} it writes {@code startup.md} (the
 * tables, with the machine, JDK, OS, date, commit, command and load averages) and
 * {@code startup.csv} (every run) there.
 *
 * <p>Usage: {@code java StartupBench.java --java JAVA --agent AGENT.jar --runs N
 * [--empty-agent EMPTY.jar] [--baseline OTHER-AGENT.jar] [--server APP.jar]
 * [--trivial CLASSPATH [--trivial-jar JAR]] [--aot DIR] [--logs DIR] [--results DIR --commit C --command CMD]}
 */
public final class StartupBench {
    private static final Duration SERVER_TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern TIMES_LINE = Pattern.compile("(\\d+)m([\\d.]+)s (\\d+)m([\\d.]+)s");

    /** One way of starting the JVM: the extra options before the program's own arguments; {@code aot}: trained with these. */
    record Config(String name, List<String> jvmOptions, List<String> agentOptions, boolean aot) {
        Config(String name, List<String> agentOptions) {
            this(name, agentOptions, agentOptions, false);
        }
    }

    /** One start: wall and CPU time in milliseconds. */
    record Sample(double wallMillis, double cpuMillis) {
    }

    /** One program's results: the samples per configuration, and what failed to train. */
    record Results(String title, String key, Map<Config, List<Sample>> samples, List<String> notes) {
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
        String loadAtStart = loadAverage();
        String startedAt = ZonedDateTime.now(ZoneOffset.UTC).withNano(0).toString();
        List<Config> configs = new ArrayList<>();
        configs.add(new Config("without agent", List.of()));
        if (options.containsKey("--empty-agent")) {
            configs.add(new Config("empty agent", List.of("-javaagent:" + options.get("--empty-agent"))));
        }
        configs.add(new Config("with agent", List.of("-javaagent:" + agent)));
        configs.add(new Config("with agent, preempt=false", List.of("-javaagent:" + agent + "=preempt=false")));
        if (options.containsKey("--baseline")) { // another build of the agent, e.g. before a change
            configs.add(new Config("with baseline agent", List.of("-javaagent:" + options.get("--baseline"))));
        }
        Path logDir = Files.createDirectories(Path.of(options.getOrDefault("--logs", "target/startup-logs")));
        Path aotDir = options.containsKey("--aot") ? Files.createDirectories(Path.of(options.get("--aot"))) : null;
        String jdk = jdkVersion(java);
        System.out.printf("start-up: %d runs per configuration, interleaved; %d CPUs; JDK %s; load average %s%n", runs,
                Runtime.getRuntime().availableProcessors(), jdk, loadAtStart);
        List<Results> all = new ArrayList<>();
        if (options.containsKey("--server")) {
            List<String> program = List.of("-jar", options.get("--server"));
            List<String> notes = new ArrayList<>();
            List<Config> withAot = aotDir == null ? configs : withAot(java, configs, aotDir, "server", program,
                    List.of("-Dspring.context.exit=onRefresh"), List.of("--server.port=0"), logDir, notes);
            StartupBench bench = new StartupBench(java, runs, withAot, logDir);
            Map<Config, List<Sample>> server = bench.measure("server", config -> bench.serverStart(config, program));
            Results results = new Results("web application (" + Path.of(options.get("--server")).getFileName()
                    + "): process start to first answer of GET /", "server", server, notes);
            print(results);
            all.add(results);
        }
        if (options.containsKey("--trivial")) {
            // An AOT cache takes classes from jars only: the trivial main from its jar then.
            String classPath = aotDir != null && options.containsKey("--trivial-jar") ? options.get("--trivial-jar") : options.get("--trivial");
            List<String> program = List.of("-cp", classPath, "TrivialMain");
            List<String> notes = new ArrayList<>();
            List<Config> withAot = aotDir == null ? configs : withAot(java, configs, aotDir, "trivial", program,
                    List.of(), List.of(), logDir, notes);
            StartupBench bench = new StartupBench(java, runs, withAot, logDir);
            Map<Config, List<Sample>> trivial = bench.measure("trivial", config -> bench.trivialRun(config, program));
            Results results = new Results("trivial main (one virtual thread started and joined): process start to exit",
                    "trivial", trivial, notes);
            print(results);
            all.add(results);
        }
        if (options.containsKey("--results")) {
            Path dir = Files.createDirectories(Path.of(options.get("--results")));
            String loadAtEnd = loadAverage();
            writeCsv(dir.resolve("startup.csv"), all);
            writeMarkdown(dir.resolve("startup.md"), all, runs, jdk, startedAt, loadAtStart, loadAtEnd,
                    options.getOrDefault("--commit", "?"), options.getOrDefault("--command", "?"));
            System.out.println();
            System.out.println("start-up: wrote " + dir.resolve("startup.md") + " and " + dir.resolve("startup.csv"));
        }
    }

    /**
     * The configurations, and for no agent, the empty agent and the agent each, an AOT cache
     * configuration, trained first; a training that fails is noted (with what the JVM said) and
     * its configuration left out.
     */
    private static List<Config> withAot(String java, List<Config> configs, Path aotDir, String what, List<String> program,
                                        List<String> trainingOptions, List<String> trainingArgs, Path logDir,
                                        List<String> notes) throws Exception {
        List<Config> result = new ArrayList<>(configs);
        for (Config config : configs) {
            if (!config.name().equals("without agent") && !config.name().equals("empty agent")
                    && !config.name().equals("with agent")) {
                continue;
            }
            Path cache = aotDir.resolve(what + "-" + slug(config) + ".aot");
            Path log = logDir.resolve(what + "-aot-training-" + slug(config) + ".log");
            String failure = train(java, cache, config.agentOptions(), trainingOptions, program, trainingArgs, log, aotDir,
                    what + ": AOT cache training run, " + config.name());
            if (failure == null) {
                List<String> options = new ArrayList<>(List.of("-XX:AOTCache=" + cache));
                options.addAll(config.agentOptions());
                result.add(new Config(config.name() + ", AOT cache", options, config.agentOptions(), true));
                continue;
            }
            String note = String.format("AOT cache training, %s: failed (%s, no cache written); the JVM said: %s (log: %s)",
                    config.name(), failure, said(log), log.getFileName());
            notes.add(note);
            System.err.println(what + ": " + note);
            if (!config.name().equals("with agent")) {
                continue;
            }
            // What ./loomgmp run --aot does instead: train without the agent but with its module, then run
            // with the agent on that cache (-XX:AOTMode=on: a cache the JVM refuses fails the run, not
            // measures one without it). The application's cached classes then get no preemption polls.
            Path launcherCache = aotDir.resolve(what + "-" + slug(config) + "-trained-without.aot");
            Path launcherLog = logDir.resolve(what + "-aot-training-" + slug(config) + "-trained-without.log");
            String launcherFailure = train(java, launcherCache, List.of("--add-modules", "java.instrument"), trainingOptions,
                    program, trainingArgs, launcherLog, aotDir, what + ": AOT cache training run as ./loomgmp run --aot trains it");
            if (launcherFailure == null) {
                List<String> options = new ArrayList<>(List.of("-XX:AOTMode=on", "-XX:AOTCache=" + launcherCache));
                options.addAll(config.agentOptions());
                result.add(new Config(config.name() + ", AOT cache", options, config.agentOptions(), true));
                notes.add("with agent, AOT cache: trained without the agent but with --add-modules java.instrument, as"
                        + " ./loomgmp run --aot trains it, then run with the agent and -XX:AOTMode=on; the application's"
                        + " classes in the cache get no preemption polls");
            } else {
                notes.add(String.format("AOT cache training as ./loomgmp run --aot trains it: failed (%s); the JVM said: %s (log: %s)",
                        launcherFailure, said(launcherLog), launcherLog.getFileName()));
            }
        }
        return result;
    }

    /** One training run writing {@code cache}; null if it wrote it, else what went wrong. */
    private static String train(String java, Path cache, List<String> jvmOptions, List<String> trainingOptions,
                                List<String> program, List<String> trainingArgs, Path log, Path dir, String progress)
            throws Exception {
        Files.deleteIfExists(cache);
        List<String> command = new ArrayList<>(List.of(java, "-XX:AOTCacheOutput=" + cache));
        command.addAll(jvmOptions);
        command.addAll(trainingOptions);
        command.addAll(program);
        command.addAll(trainingArgs);
        System.err.printf("%s: %s%n", progress, String.join(" ", command));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean exited = process.waitFor(300, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly().waitFor();
            return "timed out";
        }
        // The JVM exits 0 when the assembly of the cache fails: the file is the evidence.
        return process.exitValue() == 0 && Files.isRegularFile(cache) ? null : "exit " + process.exitValue();
    }

    /** What the JVM said of a failed training: the JDK classes it left out (an agent transformed them), then its errors. */
    private static String said(Path log) throws IOException {
        return Files.readAllLines(log).stream()
                .filter(line -> line.contains("Skipping java/") && line.contains("ClassFileLoadHook") || line.contains("[error")
                        || line.contains("SIGSEGV") || line.contains("Problematic frame") || line.startsWith("# V  [")
                        || line.contains("Error:") || line.contains("Error occurred"))
                .map(String::strip).distinct().limit(10).reduce((x, y) -> x + " | " + y).orElse("(nothing)");
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
        System.err.printf("%s: %d configurations x %d runs, interleaved (a warm-up run of each first)%n", what, configs.size(), runs);
        for (int run = 1; run <= runs; run++) {
            StringBuilder progress = new StringBuilder(String.format("%s run %d/%d (load %s):", what, run, runs, loadAverage()));
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

    private static void print(Results results) {
        System.out.println();
        System.out.println(results.title());
        System.out.printf("  %-38s %-5s %11s %13s %13s%n", "(ms)", "", "median", "IQR", "min-max");
        for (String kind : List.of("wall", "CPU")) {
            for (var entry : results.samples().entrySet()) {
                double[] s = sorted(entry.getValue(), kind);
                System.out.printf("  %-38s %-5s %11.0f %13s %13s%n", entry.getKey().name(), kind, quantile(s, 0.5),
                        range(quantile(s, 0.25), quantile(s, 0.75)), range(s[0], s[s.length - 1]));
            }
        }
        for (String line : differences(results)) {
            System.out.println("  " + line);
        }
        for (String note : results.notes()) {
            System.out.println("  " + note);
        }
    }

    private static double[] sorted(List<Sample> samples, String kind) {
        return samples.stream().mapToDouble(kind.equals("wall") ? Sample::wallMillis : Sample::cpuMillis).sorted().toArray();
    }

    /** The differences of medians: each configuration against no agent, the agents against the empty agent (each under AOT against its AOT twin). */
    private static List<String> differences(Results results) {
        Map<String, Config> byName = new LinkedHashMap<>();
        results.samples().keySet().forEach(config -> byName.put(config.name(), config));
        List<String> lines = new ArrayList<>();
        for (Config config : results.samples().keySet()) {
            String suffix = config.aot() ? ", AOT cache" : "";
            for (String base : List.of("without agent", "empty agent")) {
                Config reference = byName.get(base + suffix);
                boolean agent = config.name().startsWith("with agent") || config.name().startsWith("with baseline agent");
                if (reference == null || reference == config || (base.equals("empty agent") && !agent)) {
                    continue;
                }
                lines.add(difference(results, config, reference));
            }
            if (config.aot() && byName.containsKey(config.name().replace(", AOT cache", ""))) {
                lines.add(difference(results, config, byName.get(config.name().replace(", AOT cache", ""))));
            }
        }
        return lines;
    }

    private static String difference(Results results, Config config, Config reference) {
        double[] wall = sorted(results.samples().get(config), "wall");
        double[] baseWall = sorted(results.samples().get(reference), "wall");
        double[] cpu = sorted(results.samples().get(config), "CPU");
        double[] baseCpu = sorted(results.samples().get(reference), "CPU");
        double dWall = quantile(wall, 0.5) - quantile(baseWall, 0.5);
        double dCpu = quantile(cpu, 0.5) - quantile(baseCpu, 0.5);
        return String.format("%s - %s (medians): wall %+.0f ms (%+.1f %%), CPU %+.0f ms (%+.1f %%)", config.name(), reference.name(),
                dWall, 100 * dWall / quantile(baseWall, 0.5), dCpu, 100 * dCpu / quantile(baseCpu, 0.5));
    }

    private static void writeCsv(Path file, List<Results> all) throws IOException {
        StringBuilder csv = new StringBuilder("program,configuration,run,wall_ms,cpu_ms\n");
        for (Results results : all) {
            results.samples().forEach((config, samples) -> {
                for (int i = 0; i < samples.size(); i++) {
                    csv.append(String.format("%s,\"%s\",%d,%.1f,%.1f%n", results.key(), config.name(), i + 1,
                            samples.get(i).wallMillis(), samples.get(i).cpuMillis()));
                }
            });
        }
        Files.writeString(file, csv);
    }

    private static void writeMarkdown(Path file, List<Results> all, int runs, String jdk, String startedAt, String loadAtStart,
                                      String loadAtEnd, String commit, String command) throws IOException {
        StringBuilder md = new StringBuilder("# Start-up cost of the loom-gmp agent\n\n");
        md.append("Written by `benchmarks/startup/run.sh --publish`; every run is in `startup.csv`.\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| machine | ").append(cpuModel()).append(", ").append(Runtime.getRuntime().availableProcessors()).append(" cores |\n");
        md.append("| JDK | ").append(jdk).append(" |\n");
        md.append("| OS | ").append(osName()).append(" |\n");
        md.append("| date (UTC) | ").append(startedAt).append(" |\n");
        md.append("| git commit | ").append(commit).append(" |\n");
        md.append("| command | `").append(command).append("` |\n");
        md.append("| runs | ").append(runs).append(" per configuration, interleaved, after one unmeasured run of each |\n");
        md.append("| load average (1, 5, 15 min) | at start ").append(loadAtStart).append("; at end ").append(loadAtEnd).append(" |\n");
        for (Results results : all) {
            md.append("\n## ").append(results.title()).append("\n\n");
            md.append("| configuration | wall median (ms) | wall IQR | wall min-max | CPU median (ms) | CPU IQR | CPU min-max |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|\n");
            results.samples().forEach((config, samples) -> {
                double[] w = sorted(samples, "wall");
                double[] c = sorted(samples, "CPU");
                md.append(String.format("| %s | %.0f | %s | %s | %.0f | %s | %s |%n", config.name(), quantile(w, 0.5),
                        range(quantile(w, 0.25), quantile(w, 0.75)), range(w[0], w[w.length - 1]), quantile(c, 0.5),
                        range(quantile(c, 0.25), quantile(c, 0.75)), range(c[0], c[c.length - 1])));
            });
            md.append("\nDifferences of the medians:\n\n");
            for (String line : differences(results)) {
                md.append("- ").append(line).append("\n");
            }
            for (String note : results.notes()) {
                md.append("\n").append(note.replace("|", "\\|")).append("\n");
            }
        }
        Files.writeString(file, md);
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).strip().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).strip()).findFirst().orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static String osName() {
        String name = System.getProperty("os.name") + " " + System.getProperty("os.version");
        try {
            for (String line : Files.readAllLines(Path.of("/etc/os-release"))) {
                if (line.startsWith("PRETTY_NAME=")) {
                    return line.substring("PRETTY_NAME=".length()).replace("\"", "") + ", " + name;
                }
            }
        } catch (IOException e) {
            // the kernel's name alone
        }
        return name;
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
