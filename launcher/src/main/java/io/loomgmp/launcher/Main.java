package io.loomgmp.launcher;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ./loomgmp}'s commands: the {@code loomgmp} script finds a JDK 25 and runs this jar with
 * the command's arguments, from the caller's directory (paths in arguments stay relative to it).
 *
 * <p>Each command checks its arguments first (a usage error: its message, its synopsis, exit 2,
 * nothing built), then builds what it runs if that is missing or stale ({@link Build}), then runs
 * it: in the launcher's place ({@link Processes#replaceWith}) when nothing is left to do after it,
 * as a child otherwise. The user commands ({@code run}, {@code top}, {@code trace}, {@code jfc},
 * {@code version}) run the agent jar and the trace jar, whose own {@code Main-Class}es they
 * stand in front of; the evaluators' and contributors' run the demo, the soak, the benchmarks'
 * runners or Maven. Every help text is in {@link Help}.
 *
 * <p>Every line the launcher prints itself starts with {@code loomgmp: } and goes to standard
 * error (docs/troubleshooting.md lists them); standard output is the commands' (help, a path, the
 * version).
 */
public final class Main {
    private final Checkout checkout;
    private final Help help;
    private final Build build;
    private final Path dir = Path.of("").toAbsolutePath();

    private Main(Checkout checkout) {
        this.checkout = checkout;
        this.help = new Help(checkout);
        this.build = new Build(checkout);
    }

    public static void main(String[] args) {
        Main main = new Main(Checkout.find());
        int status;
        try {
            main.selfCheck(List.of(args));
            status = main.command(List.of(args)).status;
        } catch (UsageError e) {
            System.err.print("loomgmp: " + e.getMessage() + "\n" + main.help.synopsis(e.command)
                    + "(./loomgmp help " + e.command + " describes every option)\n");
            status = 2;
        } catch (Stop stop) {
            if (stop.getMessage() != null) {
                say(stop.getMessage());
            }
            status = stop.status;
        }
        System.out.flush();
        System.exit(status);
    }

    /** A line of the launcher's own, on standard error. */
    static void say(String line) {
        System.err.println("loomgmp: " + line);
    }

    /**
     * The launcher's own jar is built from the checkout too: when its sources changed, it builds
     * itself and has the script start it again (once: {@code LOOMGMP_REBUILT}), so that a
     * {@code git pull} never runs an old launcher.
     */
    private void selfCheck(List<String> args) {
        String script = System.getenv("LOOMGMP_SCRIPT");
        if (script == null || System.getenv("LOOMGMP_REBUILT") != null) {
            return;
        }
        Optional<String> stale = build.staleReason(Checkout.Jar.LAUNCHER);
        if (stale.isEmpty()) {
            return;
        }
        say(stale.get());
        build.build(List.of(Checkout.Jar.LAUNCHER.module));
        throw Processes.replaceWith(RunCommand.concat(List.of("env", "LOOMGMP_REBUILT=1", "bash", script), args));
    }

    private Stop command(List<String> args) {
        String command = args.isEmpty() ? "help" : args.getFirst();
        List<String> rest = args.isEmpty() ? List.of() : args.subList(1, args.size());
        return switch (command) {
            case "run" -> run(rest);
            case "top" -> top(rest);
            case "trace" -> trace(rest);
            case "jfc" -> jfc(rest);
            case "version", "--version" -> version(rest);
            case "demo" -> demo(rest);
            case "bench" -> new BenchCommand(checkout, build, help).run(rest);
            case "soak" -> soak(rest);
            case "build" -> buildAll(rest);
            case "test" -> new TestCommand(checkout, help).run(rest);
            case "help", "-h", "--help" -> {
                if (rest.size() > 1) {
                    throw new UsageError("'help' takes one command at most, not '" + String.join(" ", rest) + "'", "help");
                }
                yield rest.isEmpty() ? print(help.overview()) : helpOf(rest.getFirst());
            }
            default -> throw new Stop(2, "unknown command '" + command + "'; the commands are: "
                    + String.join(" ", Help.ALL_COMMANDS) + " (./loomgmp help lists them)");
        };
    }

    private Stop helpOf(String command) {
        if (!Help.isCommand(command)) {
            throw new Stop(2, "no command '" + command + "'; the commands are: " + String.join(" ", Help.ALL_COMMANDS));
        }
        return print(help.of(command));
    }

    static Stop print(String text) {
        System.out.print(text);
        return Stop.with(0);
    }

    /** Whether the first argument asks for the command's help. */
    private static boolean wantsHelp(List<String> args) {
        return !args.isEmpty() && (args.getFirst().equals("-h") || args.getFirst().equals("--help"));
    }

    private Stop run(List<String> args) {
        RunCommand.Options options = RunCommand.parse(args);
        if (options == null) {
            return print(help.of("run"));
        }
        return new RunCommand(checkout, build, dir).run(options);
    }

    private Stop trace(List<String> args) {
        if (wantsHelp(args)) {
            return print(help.of("trace"));
        }
        if (args.isEmpty()) {
            throw new UsageError("'trace' needs a JFR recording, e.g. ./loomgmp trace rec.jfr (record one with the settings"
                    + " ./loomgmp jfc names)", "trace");
        }
        build.ensureBuilt(Checkout.Jar.TRACE);
        return Processes.replaceWith(RunCommand.concat(List.of(Processes.java(), "-jar",
                checkout.jar(Checkout.Jar.TRACE).toString()), args));
    }

    private Stop top(List<String> args) {
        if (wantsHelp(args)) {
            return print(help.of("top"));
        }
        if (args.isEmpty()) {
            throw new UsageError("'top' needs the pid of a JVM running loom-gmp, e.g. ./loomgmp top 12345 (jps lists the"
                    + " JVMs)", "top");
        }
        build.ensureBuilt(Checkout.Jar.TRACE);
        return Processes.replaceWith(RunCommand.concat(List.of(Processes.java(), "-jar",
                checkout.jar(Checkout.Jar.TRACE).toString(), "top"), args));
    }

    /** Prints a path only: the settings files are read where they are, never copied. */
    private Stop jfc(List<String> args) {
        if (wantsHelp(args)) {
            return print(help.of("jfc"));
        }
        if (args.size() > 1) {
            throw new UsageError("'jfc' takes one of always and trace, not '" + String.join(" ", args) + "'", "jfc");
        }
        String which = args.isEmpty() || args.getFirst().isEmpty() ? "trace" : args.getFirst();
        return switch (which) {
            case "always" -> print(checkout.jfcDir().resolve("loomgmp.jfc") + "\n");
            case "trace" -> print(checkout.jfcDir().resolve("loomgmp-trace.jfc") + "\n");
            default -> throw new UsageError("'jfc' takes always or trace, not '" + which + "'", "jfc");
        };
    }

    private Stop version(List<String> args) {
        if (wantsHelp(args)) {
            return print(help.of("version"));
        }
        if (!args.isEmpty()) {
            throw new UsageError("'version' takes no arguments, not '" + String.join(" ", args) + "'", "version");
        }
        build.ensureBuilt(Checkout.Jar.AGENT);
        // loom-gmp <version>, supported JDKs: <list>: the agent jar's own answer
        int status = Processes.run(List.of(Processes.java(), "-jar", checkout.agentJar().toString(), "--version"), null,
                Map.of());
        if (status != 0) {
            return Stop.with(status);
        }
        String javaVersion = Processes.output(List.of(Processes.java(), "-version"));
        String first = javaVersion == null ? "" : javaVersion.lines().findFirst().orElse("");
        System.out.println("agent jar: " + checkout.agentJar());
        System.out.println("JDK found: " + first + " at " + System.getProperty("java.home"));
        return Stop.with(0);
    }

    private Stop demo(List<String> args) {
        if (wantsHelp(args)) {
            return print(help.of("demo"));
        }
        // The demo checks its arguments too; here a typo fails before anything is built.
        for (String arg : args) {
            if (!arg.equals("--small")) {
                throw new UsageError("'demo' takes --small only, not '" + arg + "'", "demo");
            }
        }
        build.ensureBuilt(Checkout.Jar.AGENT, Checkout.Jar.DEMO);
        return Processes.replaceWith(RunCommand.concat(List.of(Processes.java(), "-jar",
                checkout.jar(Checkout.Jar.DEMO).toString(), "--agent", checkout.agentJar().toString()), args));
    }

    /** The soak checks its own arguments and prints its own --help (SoakOptions). */
    private Stop soak(List<String> args) {
        // Only the soak's jar on the class path: the agent jar supplies the dispatcher, which the
        // soak's test seams must share a class loader with.
        build.ensureBuilt(Checkout.Jar.AGENT, Checkout.Jar.SOAK);
        // -ea: the scheduler's asserts (its invariants: the lock held where it must be, an idle P's
        // queue empty) are checked throughout the soak.
        return Processes.replaceWith(RunCommand.concat(List.of(Processes.java(), "-ea",
                "-javaagent:" + checkout.agentJar(), "-cp", checkout.jar(Checkout.Jar.SOAK).toString(),
                "io.loomgmp.soak.SoakMain"), args));
    }

    private Stop buildAll(List<String> args) {
        if (wantsHelp(args)) {
            return print(help.of("build"));
        }
        if (!args.isEmpty()) {
            throw new UsageError("'build' takes no arguments, not '" + String.join(" ", args) + "'", "build");
        }
        build.build(List.of("demo", "trace-viewer", "soak", "benchmarks"));
        return Stop.with(0);
    }
}
