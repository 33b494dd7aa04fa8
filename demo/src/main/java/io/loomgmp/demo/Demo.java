package io.loomgmp.demo;

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

/**
 * {@code ./loomgmp demo [--small]}: runs {@link Workloads} twice, in separate JVMs — once with the
 * loom-gmp agent (every virtual thread on GMP) and once without (the JDK's ForkJoinPool) — and
 * prints a side-by-side table.
 *
 * <p>Usage: {@code java -jar loom-gmp-demo.jar --agent <loom-gmp-agent.jar> [--small]}
 */
public final class Demo {
    private record Row(String key, String label) {
    }

    private static final List<Row> ROWS = List.of(
            new Row("pingpong", "ping-pong hand-off (ns per round trip)"),
            new Row("skynet", "skynet, %s-leaf tree (ms)"),
            new Row("fanout", "fan-out/fan-in of %s virtual threads (ms)"));

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
        System.out.printf("%-46s %14s %14s %9s%n", "workload", "GMP", "ForkJoinPool", "GMP/FJP");
        for (Row row : ROWS) {
            String label = switch (row.key()) {
                case "skynet" -> row.label().formatted(String.format("%,d", sizes.skynetLeaves()));
                case "fanout" -> row.label().formatted(String.format("%,d", sizes.fanOutThreads()));
                default -> row.label();
            };
            double g = Double.parseDouble(gmp.get(row.key())[0]);
            double f = Double.parseDouble(fjp.get(row.key())[0]);
            System.out.printf("%-46s %14.1f %14.1f %9.2f%n", label, g, f, g / f);
        }
        System.out.printf("%-46s %14s %14s%n", "carriers seen", gmp.get("CARRIER")[0], fjp.get("CARRIER")[0]);
        System.out.println("(lower is better; " + Runtime.getRuntime().availableProcessors() + " CPUs, "
                + "JDK " + Runtime.version() + ")");
    }

    private static void usage(String problem) {
        System.err.println("loom-gmp demo: " + problem);
        System.err.println("usage: java -jar loom-gmp-demo.jar --agent <loom-gmp-agent.jar> [--small]");
        System.exit(2);
    }

    /** Runs Workloads in a new JVM; returns key -> {value, unit}, echoing progress to stderr. */
    private static Map<String, String[]> runWorkloads(List<String> jvmArgs, String extra)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Workloads.class.getName());
        if (!extra.isEmpty()) {
            command.add(extra);
        }
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Map<String, String[]> results = new LinkedHashMap<>();
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                String[] words = line.split(" ");
                if (words[0].equals("RESULT") && words.length == 4) {
                    results.put(words[1], new String[] {words[2], words[3]});
                } else if (words[0].equals("CARRIER") && words.length == 2) {
                    results.put("CARRIER", new String[] {words[1].replaceAll("\\d+$", "*")});
                } else {
                    System.err.println(line);
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0 || !results.keySet().containsAll(List.of("pingpong", "skynet", "fanout", "CARRIER"))) {
            System.err.println("loom-gmp demo: the workload JVM failed (exit " + exit + "): " + command);
            System.exit(1);
        }
        return results;
    }
}
