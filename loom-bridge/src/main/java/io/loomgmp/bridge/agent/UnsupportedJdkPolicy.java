package io.loomgmp.bridge.agent;

import java.io.PrintStream;
import java.util.Properties;

/**
 * What the agent does on a JDK it cannot put on GMP: a feature release this build does not
 * support ({@link AgentEntry}), or a supported one whose {@code java.lang.VirtualThread} has
 * another shape than the rewrite knows ({@link GmpAgent}), as a patch release or a vendor's build
 * may have. By default the agent fails open: one warning line on standard error, and the JVM runs
 * as without the agent, virtual threads on the JDK's own scheduler; so a routine change of base
 * image cannot keep every instance of an application from starting. With {@code strict=true}
 * ({@code -Dgmp.strict=true}) it refuses instead: one line, and the JVM exits with status 1, for
 * those who want GMP or nothing (benchmarks, a canary). Either way the line names the JDK, why,
 * and the other choice.
 *
 * <p>Compiled for Java 8, like AgentEntry: on a JDK too old for the rest of the agent it still
 * reads {@code strict} ({@link #strict}), by the rules that {@link AgentSettings} applies to every
 * setting. The other settings are read, and checked, only by the agent that uses them.
 */
final class UnsupportedJdkPolicy {
    /** The agent argument, {@code strict=true}; {@link AgentSetting#STRICT} is the same setting. */
    static final String ARGUMENT = "strict";
    /** The system property, {@code -Dgmp.strict=true}. */
    static final String PROPERTY = "gmp.strict";

    private UnsupportedJdkPolicy() {
    }

    /**
     * The {@code strict} setting as {@link AgentSettings#parse} reads it: the system property, then
     * the agent argument, which wins; each must be {@code true} or {@code false}. Other agent
     * arguments are not looked at.
     *
     * @param agentArguments the text after {@code =} in {@code -javaagent:jar=...}, or null
     * @throws IllegalArgumentException whose message is the one line to print, for any other
     *         value: a bad setting refuses to start, whatever it asked for
     */
    static boolean strict(String agentArguments, Properties properties) {
        String value = properties.getProperty(PROPERTY);
        if (value != null) {
            check(value, "system property " + PROPERTY);
        }
        if (agentArguments != null && !agentArguments.trim().isEmpty()) {
            for (String argument : agentArguments.split(",")) {
                int eq = argument.indexOf('=');
                String key = (eq < 0 ? argument : argument.substring(0, eq)).trim();
                if (!key.equals(ARGUMENT)) {
                    continue;
                }
                if (eq < 0) {
                    // AgentSettings says "unknown agent argument" here, with the list of every
                    // setting, which this class cannot name on a JDK too old for AgentSetting.
                    throw new IllegalArgumentException("loom-gmp: agent argument \"" + argument.trim()
                            + "\" has no value: expected strict=true or strict=false");
                }
                value = argument.substring(eq + 1).trim();
                check(value, "agent argument " + ARGUMENT);
            }
        }
        return "true".equals(value);
    }

    private static void check(String value, String source) {
        if (!value.equals("true") && !value.equals("false")) {
            // The line AgentSettings prints for a bad value of any true|false setting.
            throw new IllegalArgumentException("loom-gmp: bad value \"" + value + "\" for " + source
                    + ": expected true or false");
        }
    }

    /**
     * Prints the one line for {@code why} on {@code err}: the refusal if {@code strict}, else the
     * warning.
     *
     * @param why what does not fit, after "unsupported JDK (the JDK): ", with no full stop
     * @return the status to exit the JVM with (1) if {@code strict}; else 0: the agent steps aside
     *         and start-up goes on without it
     */
    static int report(String why, boolean strict, String agentJar, PrintStream err) {
        err.println(strict ? refusal(why, agentJar) : warning(why));
        return strict ? 1 : 0;
    }

    /**
     * {@code loom-gmp: warning: unsupported JDK 25.0.3+9-LTS (Eclipse Adoptium, java.home ...): why.
     * The JVM runs without loom-gmp: ... strict=true ... makes the agent refuse to start instead.}
     */
    static String warning(String why) {
        return "loom-gmp: warning: unsupported JDK " + jdk() + ": " + why + ". The JVM runs without loom-gmp:"
                + " virtual threads run on the JDK's default scheduler. " + ARGUMENT + "=true (-D" + PROPERTY
                + "=true) makes the agent refuse to start instead.";
    }

    /**
     * {@code loom-gmp: unsupported JDK ...: why. The JVM does not start, as strict=true asks. To run
     * without loom-gmp, ...}
     */
    static String refusal(String why, String agentJar) {
        return "loom-gmp: unsupported JDK " + jdk() + ": " + why + ". The JVM does not start, as " + ARGUMENT
                + "=true asks. To run without loom-gmp, set " + ARGUMENT + "=false (the agent then warns and steps aside)"
                + " or remove the option -javaagent:" + agentJar
                + " (and its arguments): virtual threads then run on the JDK's default scheduler.";
    }

    /**
     * The running JDK as the lines name it, its full version (a patch release or a vendor's build
     * is what differs), vendor and home: {@code 25.0.3+9-LTS (Eclipse Adoptium, java.home
     * /usr/lib/jvm/temurin-25-jdk-amd64)}.
     */
    static String jdk() {
        return System.getProperty("java.runtime.version", System.getProperty("java.version"))
                + " (" + System.getProperty("java.vm.vendor") + ", java.home " + System.getProperty("java.home") + ")";
    }
}
