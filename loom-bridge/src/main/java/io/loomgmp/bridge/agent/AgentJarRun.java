package io.loomgmp.bridge.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * {@code java -jar loom-gmp-agent.jar run [--agent-args K=V,K=V] [--] <java args>}: the application
 * on this JDK with this jar as its agent, for a user who has the jar and no checkout. The same as
 * typing {@code java -javaagent:<jar>[=K=V,K=V] <java args>} (which {@code ./loomgmp run} execs in
 * its own place); here the application is a child: its standard streams are this JVM's, its exit
 * status becomes this one's, and Ctrl-C reaches both (one process group), after which this JVM
 * waits for the child to end so that the shell's prompt comes back after it.
 *
 * <p>Exit status: the application's; 2 for a usage error (one line on standard error, nothing
 * run); 1 when java cannot be started.
 */
final class AgentJarRun {
    static final String USAGE = """
            usage: java -jar %1$s run [--agent-args K=V,K=V] [--] <java args>
              runs java -javaagent:%1$s[=K=V,K=V] <java args> on this JDK (%2$s)
              --agent-args K=V,K=V  the agent's settings (java -jar %1$s lists them)
              --                    ends these options: everything after it goes to java
            e.g. java -jar %1$s run --agent-args parallelism=4 -jar app.jar
            """;
    /** One agent setting: catches a forgotten value ({@code --agent-args -jar app.jar}) before java starts. */
    private static final Pattern SETTING = Pattern.compile("[A-Za-z][A-Za-z0-9._-]*=[^=,]*");

    private static volatile Process child; // for the shutdown hook

    private AgentJarRun() {
    }

    /** Called by {@link AgentJarMain} on a supported JDK, with the arguments after {@code run}. */
    static int run(String[] args, String agentJar) {
        List<String> command;
        try {
            command = command(List.of(args), agentJar);
        } catch (IllegalArgumentException usage) {
            System.err.println("loom-gmp: " + usage.getMessage());
            System.err.print(usage(agentJar));
            return 2;
        }
        if (command == null) {
            System.out.print(usage(agentJar));
            return 0;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(AgentJarRun::awaitChild, "loomgmp-run-waiter"));
        try {
            child = new ProcessBuilder(command).inheritIO().start();
            return child.waitFor();
        } catch (IOException e) {
            System.err.println("loom-gmp: cannot run " + command.getFirst() + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    static String usage(String agentJar) {
        return USAGE.formatted(agentJar, System.getProperty("java.home"));
    }

    /**
     * The java command for {@code args}, or null when they ask for this help; an
     * IllegalArgumentException says what is wrong with them.
     */
    static List<String> command(List<String> args, String agentJar) {
        StringBuilder agentArgs = new StringBuilder();
        int i = 0;
        for (; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("-h") || arg.equals("--help")) {
                return null;
            } else if (arg.equals("--agent-args") || arg.startsWith("--agent-args=")) {
                String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : i + 1 < args.size() ? args.get(++i) : "";
                for (String setting : value.split(",", -1)) {
                    if (!SETTING.matcher(setting).matches()) {
                        throw new IllegalArgumentException("--agent-args takes K=V settings separated by commas, e.g."
                                + " parallelism=4,verbose=true, not '" + value + "'");
                    }
                }
                agentArgs.append(agentArgs.isEmpty() ? "" : ",").append(value);
            } else {
                if (arg.equals("--")) {
                    i++;
                }
                break;
            }
        }
        if (i >= args.size()) {
            throw new IllegalArgumentException("'run' needs java arguments, e.g. run -jar app.jar");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-javaagent:" + agentJar + (agentArgs.isEmpty() ? "" : "=" + agentArgs));
        command.addAll(args.subList(i, args.size()));
        return command;
    }

    /** The shutdown hook: after Ctrl-C the child has the signal too; wait until it ends. */
    private static void awaitChild() {
        Process running = child;
        if (running == null) {
            return;
        }
        try {
            if (!running.waitFor(10, TimeUnit.SECONDS)) {
                running.destroy();
            }
        } catch (InterruptedException e) {
            running.destroyForcibly();
        }
    }
}
