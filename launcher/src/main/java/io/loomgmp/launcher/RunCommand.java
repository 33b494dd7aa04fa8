package io.loomgmp.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code ./loomgmp run [--agent-args K=V,K=V] [--aot FILE] [--] <java args>}: java with the agent,
 * and with {@code --aot} a JDK 25 AOT cache that the first run trains and the next ones use
 * ({@link AotCache} checks that it fits). Its options come before the java arguments: the first
 * argument that is not one of them starts those. Paths stay relative to the caller's directory.
 */
final class RunCommand {
    /** One agent setting: catches a forgotten value ({@code --agent-args -jar app.jar}) before java starts. */
    private static final Pattern SETTING = Pattern.compile("[A-Za-z][A-Za-z0-9._-]*=[^=]*");

    /** The options read, and the java arguments after them. */
    record Options(String agentArgs, String aot, List<String> javaArgs) {
    }

    private final Checkout checkout;
    private final Build build;
    private final Path dir;

    RunCommand(Checkout checkout, Build build, Path dir) {
        this.checkout = checkout;
        this.build = build;
        this.dir = dir;
    }

    /** Reads {@code run}'s options; null when it asks for its help. */
    static Options parse(List<String> args) {
        String agentArgs = "";
        String aot = null;
        int i = 0;
        loop:
        for (; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg.startsWith("--agent-args=") ? "--agent-args" : arg.startsWith("--aot=") ? "--aot" : arg) {
                case "-h", "--help" -> {
                    return null;
                }
                case "--agent-args" -> {
                    String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1)
                            : i + 1 < args.size() ? args.get(++i) : "";
                    if (value.isEmpty()) {
                        throw new UsageError("--agent-args needs a value, e.g. --agent-args parallelism=4,verbose=true", "run");
                    }
                    for (String item : value.split(",", -1)) {
                        if (!SETTING.matcher(item).matches()) {
                            throw new UsageError("--agent-args takes K=V settings separated by commas, e.g."
                                    + " parallelism=4,verbose=true, not '" + value + "'", "run");
                        }
                    }
                    // Given twice: both, in order (the agent takes the last of a setting).
                    agentArgs += (agentArgs.isEmpty() ? "" : ",") + value;
                }
                case "--aot" -> {
                    aot = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1)
                            : i + 1 < args.size() && !args.get(i + 1).startsWith("-") ? args.get(++i) : "";
                    if (aot.isEmpty()) {
                        throw new UsageError("--aot needs the AOT cache file, e.g. --aot app.aot (written by the first run,"
                                + " used by the next ones)", "run");
                    }
                }
                case "--" -> {
                    i++;
                    break loop;
                }
                default -> {
                    break loop;
                }
            }
        }
        List<String> javaArgs = args.subList(i, args.size());
        if (javaArgs.isEmpty()) {
            throw new UsageError("'run' needs java arguments, e.g. ./loomgmp run -jar app.jar", "run");
        }
        return new Options(agentArgs, aot, List.copyOf(javaArgs));
    }

    Stop run(Options options) {
        build.ensureBuilt(Checkout.Jar.AGENT);
        Path agent = checkout.agentJar();
        String javaagent = "-javaagent:" + agent + (options.agentArgs().isEmpty() ? "" : "=" + options.agentArgs());
        if (options.aot() == null) {
            return Processes.replaceWith(concat(List.of(Processes.java(), javaagent), options.javaArgs()));
        }
        Path aot = dir.resolve(options.aot());
        if (Files.isDirectory(aot)) {
            throw new UsageError("--aot " + options.aot() + " is a directory: name the cache file, e.g. --aot app.aot", "run");
        }
        return Files.exists(aot) ? useCache(options, javaagent) : train(options);
    }

    /** Runs java with the agent on the cache, if the cache was made from what this run has. */
    private Stop useCache(Options options, String javaagent) {
        String aot = options.aot();
        Path inputsFile = dir.resolve(aot + ".inputs");
        if (!Files.isRegularFile(inputsFile)) {
            throw new Stop(2, "the AOT cache " + aot + " has no " + aot + ".inputs, so it was not trained by ./loomgmp run"
                    + " --aot and cannot be checked against this JDK, agent jar and class path: delete " + aot
                    + " and run again to train one");
        }
        String change;
        try {
            change = AotCache.change(Files.readAllLines(inputsFile), inputs(options.javaArgs()));
        } catch (IOException e) {
            throw new Stop(2, "cannot read " + aot + ".inputs: " + e.getMessage());
        }
        if (change != null) {
            throw new Stop(2, "the AOT cache " + aot + " does not fit this run: " + change + "; delete " + aot
                    + " and run again to train a new one");
        }
        Main.say("using the AOT cache " + aot + " (-XX:AOTCache=" + aot + " -XX:AOTMode=on: if the JVM cannot use it,"
                + " it stops and says why; then delete " + aot + " to train a new one)");
        if (!("," + options.agentArgs() + ",").contains(",preempt=false,")) { // else no class gets polls anyway
            Main.say("the application classes in " + aot + " are loaded before the agent starts: they get no preemption"
                    + " polls, so a CPU-bound loop in them is not preempted");
        }
        return Processes.replaceWith(concat(List.of(Processes.java(), javaagent, "-XX:AOTMode=on", "-XX:AOTCache=" + aot),
                options.javaArgs()));
    }

    /**
     * The training run, without the agent (JDK 25.0.3's JVM crashes assembling a cache recorded
     * with an agent that rewrites java.lang.VirtualThread: SIGSEGV in
     * vmClasses::resolve_shared_class), but with its module, java.instrument, so that the cache
     * fits the runs with the agent. Writes FILE and FILE.inputs. A child, not in the launcher's
     * place: the launcher checks afterwards that the JVM wrote the cache (it exits 0 when the
     * assembly fails).
     */
    private Stop train(Options options) {
        String aot = options.aot();
        Path file = dir.resolve(aot);
        Path parent = file.getParent();
        if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent)) {
            String named = Path.of(aot).getParent() == null ? "." : Path.of(aot).getParent().toString();
            throw new UsageError("--aot " + aot + ": cannot write into " + named + " (no such directory, or not writable)", "run");
        }
        List<String> now = inputs(options.javaArgs()); // before the run: what the cache is made from
        Main.say("training: writing the AOT cache " + aot + " at exit; this run is WITHOUT the loom-gmp agent (on JDK 25"
                + " the JVM crashes assembling a cache recorded with it): the runs that use " + aot + " have it");
        if (!options.agentArgs().isEmpty()) {
            Main.say("--agent-args " + options.agentArgs() + " apply to the runs that use " + aot + ", not to this one");
        }
        int status = Processes.run(concat(List.of(Processes.java(), "--add-modules", "java.instrument",
                "-XX:AOTCacheOutput=" + aot), options.javaArgs()), null, Map.of());
        if (!Files.isRegularFile(file)) {
            Main.say("the JVM wrote no AOT cache " + aot + " (its messages above say why); the next run with --aot " + aot
                    + " trains again");
            return Stop.with(status == 0 ? 1 : status);
        }
        try {
            Files.write(dir.resolve(aot + ".inputs"), now);
        } catch (IOException e) {
            throw new Stop(1, "cannot write " + aot + ".inputs: " + e.getMessage());
        }
        Main.say("wrote the AOT cache " + aot + " (and " + aot + ".inputs, what it was made from); the same command now"
                + " runs with the agent and uses it");
        return Stop.with(status);
    }

    private List<String> inputs(List<String> javaArgs) {
        try {
            JavaCommandLine java = JavaCommandLine.parse(javaArgs, Processes.callers("JDK_JAVA_OPTIONS"),
                    System.getenv("CLASSPATH"), dir);
            return AotCache.inputs(checkout.agentJar(), java, dir);
        } catch (JavaCommandLine.ArgFileException e) {
            throw new UsageError(e.getMessage(), "run");
        } catch (IOException e) {
            throw new Stop(1, "cannot read what the AOT cache is made from: " + e.getMessage());
        }
    }

    static List<String> concat(List<String> first, List<String> then) {
        List<String> all = new ArrayList<>(first);
        all.addAll(then);
        return all;
    }
}
