package io.loomgmp.demo;

import example.probes.FairnessProbe;
import example.probes.PinnedProbe;
import example.probes.TimersProbe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code ./loomgmp demo [--small]}: runs {@link Workloads} twice, in separate JVMs — once with the
 * loom-gmp agent (every virtual thread on GMP) and once without (the JDK's ForkJoinPool) — and
 * prints a side-by-side table (the timers rows are {@link TimersProbe}'s sleepers); then the same for
 * sysmon's probes ({@link FairnessProbe}: a sleeper beside CPU hogs, 1 and 4 per processor, and a
 * fresh thread beside 4 per processor; {@link PinnedProbe}: a fresh thread while every carrier is
 * pinned).
 *
 * <p>Usage: {@code java -jar loom-gmp-demo.jar --agent <loom-gmp-agent.jar> [--small]}
 */
public final class Demo {
    private record Row(String key, String label) {
    }

    private static final List<Row> ROWS = List.of(
            new Row("pingpong", "ping-pong hand-off (ns per round trip)"),
            new Row("skynet", "skynet, %s-leaf tree (ms)"),
            new Row("fanout", "fan-out/fan-in of %s virtual threads (ms)"),
            new Row("sleepers", "%s sleepers x %s x sleep(1 ms): total (ms)"),
            new Row("sleeperslateness", "%s sleepers x %s x sleep(1 ms): lateness p99 (ms)"));
    /** Hogs per processor in the oversubscribed fairness probe. */
    private static final int OVERSUBSCRIBED = 4;

    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        Path agent = null;
        boolean small = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--agent" -> {
                    if (i + 1 == args.length) {
                        usage("--agent needs the path of loom-gmp-agent.jar");
                    }
                    agent = Path.of(args[++i]);
                }
                case "--small" -> small = true;
                default -> usage("unknown argument: " + args[i]);
            }
        }
        if (agent == null) {
            usage("--agent is required");
        }
        if (!Files.isRegularFile(agent)) {
            usage("no agent jar at " + agent + " (build it with ./mvnw -B package -DskipTests)");
        }
        Workloads.Sizes sizes = small ? Workloads.Sizes.SMALL : Workloads.Sizes.FULL;
        String extra = small ? "--small" : "";

        System.err.println("loom-gmp demo: each workload once to warm up, then the median of " + sizes.runs()
                + " run(s); GMP and ForkJoinPool in separate JVMs");
        System.err.println("[1/2] virtual threads on GMP (-javaagent:" + agent + ")");
        Map<String, String[]> gmp = runWorkloads(List.of("-javaagent:" + agent), extra);
        System.err.println("[2/2] virtual threads on the JDK's ForkJoinPool");
        Map<String, String[]> fjp = runWorkloads(List.of(), extra);

        System.out.println();
        System.out.printf("%-53s %14s %14s %9s%n", "workload", "GMP", "ForkJoinPool", "GMP/FJP");
        for (Row row : ROWS) {
            String label = switch (row.key()) {
                case "skynet" -> row.label().formatted(String.format("%,d", sizes.skynetLeaves()));
                case "fanout" -> row.label().formatted(String.format("%,d", sizes.fanOutThreads()));
                case "sleepers", "sleeperslateness" ->
                        row.label().formatted(String.format("%,d", sizes.sleepers()), sizes.sleeps());
                default -> row.label();
            };
            double g = Double.parseDouble(gmp.get(row.key())[0]);
            double f = Double.parseDouble(fjp.get(row.key())[0]);
            System.out.printf("%-53s %14.1f %14.1f %9.2f%n", label, g, f, g / f);
        }
        System.out.printf("%-53s %14s %14s%n", "carriers seen", gmp.get("CARRIER")[0], fjp.get("CARRIER")[0]);
        System.out.println("(lower is better; " + Runtime.getRuntime().availableProcessors() + " CPUs, "
                + "JDK " + Runtime.version() + ")");
        printProbes(agent);
    }

    /** Sysmon's probes, each in a fresh JVM per scheduler (a class initialiser runs once per JVM). */
    private static void printProbes(Path agent) throws IOException, InterruptedException {
        System.err.println("sysmon probes: fairness beside 1 and " + OVERSUBSCRIBED
                + " CPU hogs per processor, then a fresh thread while every carrier is pinned");
        List<String> gmpArgs = List.of("-javaagent:" + agent);
        Map<String, String> gmpFair = runProbe(gmpArgs, FairnessProbe.class, "1");
        Map<String, String> fjpFair = runProbe(List.of(), FairnessProbe.class, "1");
        String hogs = String.valueOf(OVERSUBSCRIBED);
        Map<String, String> gmpOver = runProbe(gmpArgs, FairnessProbe.class, hogs);
        Map<String, String> fjpOver = runProbe(List.of(), FairnessProbe.class, hogs);
        System.out.println();
        System.out.printf("%-62s %13s %16s%n", "sysmon probe", "GMP", "ForkJoinPool");
        System.out.printf("%-62s %13s %16s%n", "fairness, 1 x procs hogs: worst lateness of 20 x sleep(1) (ms)",
                sleeps(gmpFair), sleeps(fjpFair));
        System.out.printf("%-62s %13s %16s%n",
                "fairness, " + OVERSUBSCRIBED + " x procs hogs: worst lateness of 20 x sleep(1) (ms)",
                sleeps(gmpOver), sleeps(fjpOver));
        System.out.printf("%-62s %13s %16s%n",
                OVERSUBSCRIBED + " x procs hogs: fresh thread started by a platform thread (ms)",
                freshThread(gmpOver), freshThread(fjpOver));
        // The FIFO probe blocks carriers in a native read, which sysmon sees only through Linux's /proc.
        boolean linux = System.getProperty("os.name").startsWith("Linux");
        for (String mode : linux ? List.of("clinit", "fifo") : List.of("clinit")) {
            Map<String, String> g = runProbe(gmpArgs, PinnedProbe.class, mode);
            Map<String, String> f = runProbe(List.of(), PinnedProbe.class, mode);
            String label = mode.equals("clinit") ? "pinned in a class initialiser: fresh thread's latency (ms)"
                    : "blocked reading a FIFO: fresh thread's latency (ms)";
            System.out.printf("%-62s %13s %16s%n", label, millis(g.get("probeMicros")), millis(f.get("probeMicros")));
        }
        if (!linux) {
            System.out.println("(the FIFO probe is left out: native blocking is detected on Linux only)");
        }
        System.out.println("(every carrier is held for " + PinnedProbe.BLOCK_MILLIS + " ms in the pinned probes; the hogs spin "
                + FairnessProbe.HOG_BOUND.toMillis() + " ms unless the probe finishes first)");
    }

    /** The fairness probe's worst sleep lateness, or "starved" if the sleeps did not finish while the hogs ran. */
    private static String sleeps(Map<String, String> probe) {
        if (!Boolean.parseBoolean(probe.get("sleepsFinishedWhileHogsRan"))) {
            return "starved";
        }
        return millis(probe.get("worstLatenessMicros"));
    }

    /** The fairness probe's worst fresh thread, or "starved" if they did not all run while the hogs ran. */
    private static String freshThread(Map<String, String> probe) {
        if (!Boolean.parseBoolean(probe.get("freshThreadsRanWhileHogsRan"))) {
            return "starved";
        }
        return millis(probe.get("freshThreadMicros"));
    }

    private static String millis(String micros) {
        return String.format("%.1f", Long.parseLong(micros) / 1000.0);
    }

    /** Runs a probe's main in a new JVM; returns its {@code key=value} lines, echoing the rest to stderr. */
    private static Map<String, String> runProbe(List<String> jvmArgs, Class<?> probe, String... args)
            throws IOException, InterruptedException {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> command = runJava(jvmArgs, probe, List.of(args), line -> {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            } else {
                System.err.println(line);
            }
        });
        if (command != null) {
            System.err.println("loom-gmp demo: the probe JVM failed: " + command);
            System.exit(1);
        }
        return values;
    }

    private static void usage(String problem) {
        System.err.println("loom-gmp demo: " + problem);
        System.err.println("usage: java -jar loom-gmp-demo.jar --agent <loom-gmp-agent.jar> [--small]");
        System.exit(2);
    }

    /** Runs Workloads in a new JVM; returns key -> {value, unit}, echoing progress to stderr. */
    private static Map<String, String[]> runWorkloads(List<String> jvmArgs, String extra)
            throws IOException, InterruptedException {
        Map<String, String[]> results = new LinkedHashMap<>();
        List<String> failed = runJava(jvmArgs, Workloads.class, extra.isEmpty() ? List.of() : List.of(extra), line -> {
            String[] words = line.split(" ");
            if (words[0].equals("RESULT") && words.length == 4) {
                results.put(words[1], new String[] {words[2], words[3]});
            } else if (words[0].equals("CARRIER") && words.length == 2) {
                results.put("CARRIER", new String[] {words[1].replaceAll("\\d+$", "*")});
            } else {
                System.err.println(line);
            }
        });
        if (failed != null || !results.keySet().containsAll(
                List.of("pingpong", "skynet", "fanout", "sleepers", "sleeperslateness", "CARRIER"))) {
            System.err.println("loom-gmp demo: the workload JVM failed: " + failed);
            System.exit(1);
        }
        return results;
    }

    /**
     * Runs {@code main} in a new JVM on this class path, handing each line of its standard output
     * to {@code lines} (its standard error goes to ours). Returns null on success, else the command.
     */
    private static List<String> runJava(List<String> jvmArgs, Class<?> main, List<String> args,
                                        Consumer<String> lines)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                lines.accept(line);
            }
        }
        return process.waitFor() == 0 ? null : command;
    }
}
