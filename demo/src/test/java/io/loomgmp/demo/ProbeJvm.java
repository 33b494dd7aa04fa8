package io.loomgmp.demo;

import io.loomgmp.testsupport.Fork;
import io.loomgmp.testsupport.Forked;
import io.loomgmp.testsupport.Required;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs a probe's {@code main} in a JVM of its own, with the loom-gmp agent (every virtual thread on
 * GMP) or without it (the JDK's ForkJoinPool), through the shared {@link Fork}; the probe prints
 * {@code key=value} lines, read with {@link Forked#value(String)}.
 */
final class ProbeJvm {
    static final Path ROOT = Required.path("loomgmp.root");
    static final Path AGENT = ROOT.resolve("loom-bridge/target/loom-gmp-agent.jar");

    private ProbeJvm() {
    }

    /** Under the agent. */
    static Forked gmp(List<String> jvmArgs, Class<?> main, String... args) {
        assertTrue(Files.isRegularFile(AGENT), "no agent jar at " + AGENT);
        List<String> withAgent = new ArrayList<>();
        withAgent.add("-javaagent:" + AGENT);
        withAgent.addAll(jvmArgs);
        return run(withAgent, main, args);
    }

    /** Without the agent: the JDK's ForkJoinPool. */
    static Forked forkJoinPool(List<String> jvmArgs, Class<?> main, String... args) {
        return run(jvmArgs, main, args);
    }

    /** Runs the probe to completion: exit 0 within {@link Fork}'s bound, else the test fails. */
    private static Forked run(List<String> jvmArgs, Class<?> main, String... args) {
        List<String> command = new ArrayList<>(jvmArgs);
        command.add("-cp");
        command.add(Required.property("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        Forked run = Fork.java(command).run();
        assertEquals(0, run.exitCode(), run.toString());
        System.out.println(main.getSimpleName() + " " + String.join(" ", args) + " ("
                + (jvmArgs.stream().anyMatch(a -> a.startsWith("-javaagent:")) ? "GMP" : "ForkJoinPool") + "): "
                + run.stdout().lines().toList());
        return run;
    }
}
