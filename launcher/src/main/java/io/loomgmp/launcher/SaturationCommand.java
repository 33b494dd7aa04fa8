package io.loomgmp.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./loomgmp bench --saturation [OPTIONS]}: checks its options (as the runner's
 * SaturationOptions does), finds wrk (installs it with --install-packages), builds what is missing
 * or stale, and runs the saturation runner with the report's paths. Everything it refuses, it
 * refuses before building.
 */
final class SaturationCommand {
    /** What --shape and --server accept: the runner's (SaturationOptionsTest checks them against it). */
    static final List<String> SHAPES = List.of("cpu", "handoff", "mixed", "hogs+sleeper", "open");
    static final List<String> SERVERS = List.of("vthread", "jetty");

    private final Checkout checkout;
    private final Build build;
    private final Help help;

    SaturationCommand(Checkout checkout, Build build, Help help) {
        this.checkout = checkout;
        this.build = build;
        this.help = help;
    }

    Stop run(List<String> args) {
        String profile = null;
        List<String> shapes = new ArrayList<>();
        String server = null;
        String duration = null;
        String agentJar = null;
        boolean publish = false;
        boolean install = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--quick", "--smoke" -> {
                    if (profile != null) {
                        throw usage("bench --saturation takes one of --quick and --smoke");
                    }
                    profile = arg;
                }
                case "--shape", "--server", "--duration", "--agent" -> {
                    if (i + 1 >= args.size() || args.get(i + 1).startsWith("-")) {
                        throw usage("bench --saturation: " + arg + " needs a value");
                    }
                    String value = args.get(++i);
                    switch (arg) {
                        case "--shape" -> {
                            for (String name : value.split(",", -1)) {
                                if (!SHAPES.contains(name)) {
                                    throw usage("bench --saturation: no shape '" + name + "'; the shapes are: "
                                            + String.join(" ", SHAPES));
                                }
                            }
                            shapes.addAll(List.of("--shape", value));
                        }
                        case "--server" -> {
                            if (!SERVERS.contains(value)) {
                                throw usage("bench --saturation: no server '" + value + "'; the servers are: "
                                        + String.join(" ", SERVERS));
                            }
                            if (server != null && !server.equals(value)) {
                                throw usage("bench --saturation takes one --server at most ('" + server + "', then '" + value + "')");
                            }
                            server = value;
                        }
                        case "--duration" -> {
                            if (!value.matches("[1-9][0-9]{0,2}") || Integer.parseInt(value) > 600) {
                                throw usage("bench --saturation: --duration takes whole seconds from 1 to 600, not '" + value + "'");
                            }
                            duration = value;
                        }
                        default -> {
                            if (!Files.isRegularFile(Path.of(value))) {
                                throw usage("bench --saturation: --agent " + value + " is not a file: name a loom-gmp agent jar");
                            }
                            agentJar = value;
                        }
                    }
                }
                case "--publish" -> publish = true;
                case "--install-packages" -> install = true;
                case "-h", "--help" -> {
                    return Main.print(help.of("bench"));
                }
                case "--startup" -> throw usage("--startup and --saturation are two benchmarks: run one at a time");
                default -> throw usage("unknown option '" + arg + "' for bench --saturation");
            }
        }
        String took = Help.time(profile == null ? "time_bench_saturation"
                : profile.equals("--quick") ? "time_bench_saturation_quick" : "time_bench_saturation_smoke");
        Path root = checkout.root();
        Path out = root.resolve("benchmarks/target/saturation/results.md");
        List<String> doc = List.of();
        if (publish) {
            // Only a whole default run may replace the published tables: a filtered or shortened
            // run would leave them half another machine's, half another run's.
            if (profile != null || !shapes.isEmpty() || server != null || duration != null) {
                throw usage("bench --saturation --publish needs a whole default run (no --quick, --smoke, --shape, --server"
                        + " or --duration): only that may replace the saturation tables in " + BenchCommand.BENCH_DOC);
            }
            out = root.resolve("benchmarks/results/saturation.md");
            doc = List.of("--doc", root.resolve(BenchCommand.BENCH_DOC).toString());
        }
        Path wrk = findWrk(install);
        String limit = openFilesLimit();
        if (agentJar != null) {
            build.ensureBuilt(Checkout.Jar.BENCHMARKS);
        } else {
            build.ensureBuilt(Checkout.Jar.AGENT, Checkout.Jar.BENCHMARKS);
            agentJar = checkout.agentJar().toString();
        }
        if (publish) {
            Main.say("bench --saturation --publish writes tracked files: benchmarks/results/saturation.md and .csv and the"
                    + " saturation section of " + BenchCommand.BENCH_DOC + "; commit them with the code they measured");
        }
        Main.say("bench --saturation writes its report to " + checkout.shortName(out) + " and its logs to"
                + " benchmarks/target/saturation/logs/; on 2 cores this run takes " + took
                + (!shapes.isEmpty() || server != null ? " at most (--shape and --server run fewer cells)" : ""));
        List<String> command = new ArrayList<>();
        // wrk and the server each hold a socket per connection: 1,024 connections need more than
        // the common default of 1,024 open files. A JVM cannot raise its own limit, so bash does,
        // to the hard limit, just before it becomes the runner.
        if (limit != null) {
            command.addAll(List.of("bash", "-c", "ulimit -n " + limit + " 2>/dev/null; exec \"$@\"", "bash"));
        }
        command.addAll(List.of(Processes.java(), "-cp", checkout.jar(Checkout.Jar.BENCHMARKS).toString(),
                "io.loomgmp.benchmarks.saturation.SaturationRunner"));
        if (profile != null) {
            command.add(profile);
        }
        command.addAll(shapes);
        if (server != null) {
            command.addAll(List.of("--server", server));
        }
        if (duration != null) {
            command.addAll(List.of("--duration", duration));
        }
        command.addAll(List.of("--agent", agentJar, "--wrk", wrk.toString(), "--out", out.toString()));
        command.addAll(doc);
        command.addAll(List.of("--logs", root.resolve("benchmarks/target/saturation/logs").toString(), "--command",
                "./loomgmp bench --saturation" + (args.isEmpty() ? "" : " " + String.join(" ", args))));
        return Processes.replaceWith(command);
    }

    private UsageError usage(String message) {
        return new UsageError(message, "bench");
    }

    /** wrk on the PATH; with --install-packages, Debian's, installed first if missing. */
    private static Path findWrk(boolean install) {
        Path wrk = Processes.onPath("wrk");
        if (wrk != null) {
            if (install) {
                Main.say("--install-packages: nothing to install (wrk is there)");
            }
            return wrk;
        }
        if (!install) {
            throw new Stop(2, "bench --saturation needs wrk (Debian's wrk 4.1.0), and there is none on the PATH: run"
                    + " ./loomgmp bench --saturation --install-packages (as root on Debian or Ubuntu; it runs apt-get install"
                    + " wrk), or install wrk yourself");
        }
        String why = Packages.whyNoAptInstall();
        if (why != null) {
            throw new Stop(2, "--install-packages cannot install wrk: " + why + "; run it as root on Debian or Ubuntu, or"
                    + " install wrk yourself");
        }
        Main.say("installing Debian's wrk for bench --saturation (apt-get, as root)");
        if (!Packages.aptInstall(List.of("wrk"))) {
            throw new Stop(1, "installing wrk failed (log above)");
        }
        wrk = Processes.onPath("wrk");
        if (wrk == null) {
            throw new Stop(1, "apt-get installed wrk, but no wrk is on the PATH");
        }
        return wrk;
    }

    /**
     * The open-files limit to raise the runner's to (the hard one), or null to leave it; warns
     * when even the hard one is too low for the 1024-connection cells.
     */
    private static String openFilesLimit() {
        String limits = Processes.output(List.of("bash", "-c", "echo $(ulimit -n) $(ulimit -Hn)"));
        if (limits == null) {
            return null;
        }
        String[] softHard = limits.strip().split(" ");
        if (softHard.length != 2 || softHard[0].equals("unlimited") || Long.parseLong(softHard[0]) >= 4096) {
            return null;
        }
        String hard = softHard[1];
        String after = hard.equals("unlimited") || Long.parseLong(hard) > Long.parseLong(softHard[0]) ? hard : softHard[0];
        if (!after.equals("unlimited") && Long.parseLong(after) < 2100) {
            Main.say("the open-files limit (ulimit -n) is " + after + ": the 1024-connection cells need about 2100, so they"
                    + " will count connect errors; raise the hard limit to run them");
        }
        return after.equals(softHard[0]) ? null : hard;
    }
}
