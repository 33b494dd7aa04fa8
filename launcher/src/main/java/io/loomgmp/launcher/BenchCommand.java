package io.loomgmp.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./loomgmp bench [--quick | --first-seconds | --smoke] [--procs N,...] [--publish] [REGEX]}: the JMH suite through
 * {@code BenchRunner}; {@code bench --startup ...}: benchmarks/startup/run.sh with the arguments
 * after {@code --startup}; {@code bench --saturation ...}: {@link SaturationCommand}. Checks its
 * arguments before building.
 */
final class BenchCommand {
    /**
     * The one file outside benchmarks/results/ that bench --publish rewrites (between its
     * bench:begin and bench:end markers; bench --saturation --publish: between saturation:begin
     * and saturation:end).
     */
    static final String BENCH_DOC = "docs/performance.md";

    private final Checkout checkout;
    private final Build build;
    private final Help help;

    BenchCommand(Checkout checkout, Build build, Help help) {
        this.checkout = checkout;
        this.build = build;
        this.help = help;
    }

    Stop run(List<String> args) {
        if (!args.isEmpty() && args.getFirst().equals("--saturation")) {
            return new SaturationCommand(checkout, build, help).run(args.subList(1, args.size()));
        }
        if (!args.isEmpty() && args.getFirst().equals("--startup")) {
            List<String> rest = args.subList(1, args.size());
            if (rest.contains("--publish")) {
                Main.say("bench --startup --publish writes tracked files (benchmarks/startup/run.sh --help says which);"
                        + " commit them with the code they measured");
            }
            if (rest.isEmpty() || !(rest.getFirst().equals("-h") || rest.getFirst().equals("--help"))) {
                Main.say("the start-up benchmark: " + Help.time("time_bench_startup") + " with the default 10 runs on 2 cores");
            }
            // It finds its JDK and builds what it needs itself.
            return Processes.replaceWith(RunCommand.concat(
                    List.of(checkout.root().resolve("benchmarks/startup/run.sh").toString()), rest));
        }
        String profile = null;
        String include = null;
        boolean publish = false;
        String procs = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--quick", "--first-seconds", "--smoke" -> {
                    if (profile != null) {
                        throw new UsageError("bench takes one of --quick, --first-seconds and --smoke", "bench");
                    }
                    profile = arg;
                }
                case "--publish" -> publish = true;
                case "--procs" -> {
                    // BenchRunner checks the numbers' range; this only catches a missing or garbled list
                    // before the build.
                    if (i + 1 >= args.size() || !args.get(i + 1).matches("\\d+(,\\d+)*")) {
                        throw new UsageError("--procs takes numbers of Ps separated by commas, e.g. --procs 2,8,32", "bench");
                    }
                    procs = args.get(++i);
                }
                case "--startup" -> throw new UsageError("--startup comes first and takes run.sh's options only: ./loomgmp"
                        + " bench --startup [--runs N] [--only server|trivial] [--agent JAR] [--baseline JAR]", "bench");
                case "--saturation" -> throw new UsageError("--saturation comes first and takes its own options only:"
                        + " ./loomgmp bench --saturation [--quick | --smoke] [--shape NAME] [--server NAME] [--duration S]"
                        + " [--agent JAR] [--publish] [--install-packages]", "bench");
                case "-h", "--help" -> {
                    return Main.print(help.of("bench"));
                }
                default -> {
                    if (arg.startsWith("-")) {
                        throw new UsageError("unknown option '" + arg + "' for bench", "bench");
                    }
                    if (include != null) {
                        throw new UsageError("bench takes one REGEX at most ('" + include + "', then '" + arg + "')", "bench");
                    }
                    include = arg;
                }
            }
        }
        String took = profile == null ? Help.time("time_bench")
                : Help.time(switch (profile) {
                    case "--quick" -> "time_bench_quick";
                    case "--first-seconds" -> "time_bench_first_seconds";
                    default -> "time_bench_smoke";
                });
        Path root = checkout.root();
        Path out = root.resolve("benchmarks/target/bench");
        List<String> readme = List.of();
        // Only a whole run with real iteration counts may replace the committed report and the
        // benchmark table, and only when asked: a trial run must not dirty the checkout with
        // another machine's numbers.
        if (publish) {
            if (include != null || procs != null || "--smoke".equals(profile) || "--first-seconds".equals(profile)) {
                throw new UsageError("--publish needs a whole run (no REGEX, --procs, --smoke or --first-seconds): only that may replace the table in "
                        + BENCH_DOC, "bench");
            }
            Main.say("bench --publish writes tracked files: benchmarks/results/ and the table in " + BENCH_DOC
                    + "; commit them with the code they measured");
            out = root.resolve("benchmarks/results");
            readme = List.of("--readme", root.resolve(BENCH_DOC).toString());
        }
        build.ensureBuilt(Checkout.Jar.AGENT, Checkout.Jar.BENCHMARKS);
        try {
            Files.createDirectories(root.resolve("benchmarks/target"));
        } catch (IOException e) {
            throw new Stop(1, "cannot create benchmarks/target: " + e.getMessage());
        }
        Main.say("bench writes its report to " + checkout.shortName(out) + "/" + (publish ? " and the benchmark table in "
                + BENCH_DOC : "") + "; on 2 cores this run takes " + took + (include != null ? " at most (a REGEX runs fewer)" : ""));
        List<String> command = new ArrayList<>(List.of(Processes.java(), "-cp",
                checkout.jar(Checkout.Jar.BENCHMARKS).toString(), "io.loomgmp.benchmarks.runner.BenchRunner"));
        if (profile != null) {
            command.add(profile);
        }
        command.addAll(List.of("--agent", checkout.agentJar().toString(), "--out", out.toString()));
        command.addAll(readme);
        command.addAll(List.of("--log", root.resolve("benchmarks/target/bench.log").toString()));
        if (procs != null) {
            command.addAll(List.of("--procs", procs));
        }
        if (include != null) {
            command.add(include);
        }
        return Processes.replaceWith(command);
    }
}
