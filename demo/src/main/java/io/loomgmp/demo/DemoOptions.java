package io.loomgmp.demo;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The demo's command line: {@code --agent <loom-gmp-agent.jar> [--small]}, or {@code --help}.
 * {@code ./loomgmp demo} passes {@code --agent} itself.
 */
record DemoOptions(Path agent, boolean small, boolean help) {
    static final String USAGE = """
            usage: ./loomgmp demo [--small]
                   java -jar demo/target/loom-gmp-demo.jar --agent <loom-gmp-agent.jar> [--small]
              --agent JAR  the loom-gmp agent jar (./loomgmp demo gives loom-bridge/target/loom-gmp-agent.jar)
              --small      shorter windows and smaller hand-off workloads, for a smoke test
              -h, --help   this help""";

    /** Bad arguments: the demo prints the message and {@link #USAGE}, and exits with status 2. */
    static final class UsageError extends Exception {
        UsageError(String message) {
            super(message);
        }
    }

    static DemoOptions parse(String... args) throws UsageError {
        Path agent = null;
        boolean small = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-h", "--help" -> {
                    return new DemoOptions(null, false, true);
                }
                case "--agent" -> {
                    if (i + 1 == args.length || args[i + 1].startsWith("--")) {
                        throw new UsageError("--agent needs the path of loom-gmp-agent.jar");
                    }
                    agent = Path.of(args[++i]);
                }
                case "--small" -> small = true;
                default -> throw new UsageError("unknown argument '" + args[i] + "'");
            }
        }
        if (agent == null) {
            throw new UsageError("--agent is required (./loomgmp demo passes it)");
        }
        if (!Files.isRegularFile(agent)) {
            throw new UsageError("no agent jar at " + agent + " (./loomgmp build builds it)");
        }
        return new DemoOptions(agent, small, false);
    }
}
