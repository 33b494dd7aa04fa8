package io.loomgmp.bridge.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Starts a JDK 25 JVM (the one running the tests, unless another JDK is named) and collects what it
 * printed, within a bound. JAVA_TOOL_OPTIONS and JDK_JAVA_OPTIONS do not reach it.
 */
public record ForkedJvm(int exitCode, String stdout, String stderr) {
    static final Path AGENT_JAR = Path.of(requiredProperty("loomgmp.agent.jar"));
    static final Path TEST_CLASSES = Path.of(requiredProperty("loomgmp.test.classes"));
    private static final long BOUND_SECONDS = 120;

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set: run through Maven (failsafe)");
        }
        return value;
    }

    /** {@code java -javaagent:<agent>[=agentArguments] <jvmArgs...> -cp <test classes> <mainClass> <args...>}. */
    static ForkedJvm withAgent(String agentArguments, List<String> jvmArgs, Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add("-javaagent:" + AGENT_JAR + (agentArguments == null ? "" : "=" + agentArguments));
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(TEST_CLASSES.toString());
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        return run(command);
    }

    /** {@code java <jvmArgs...> -cp <test classes>:<agent jar as a library> <mainClass> <args...>}. */
    public static ForkedJvm withoutAgent(List<String> jvmArgs, Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>(jvmArgs);
        command.add("-cp");
        command.add(TEST_CLASSES + java.io.File.pathSeparator + AGENT_JAR);
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        return run(command);
    }

    static ForkedJvm run(List<String> javaArguments) {
        return run(Path.of(System.getProperty("java.home")), javaArguments);
    }

    /** {@code <javaHome>/bin/java <javaArguments...>}: another JDK than the tests' one. */
    static ForkedJvm run(Path javaHome, List<String> javaArguments) {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(javaArguments);
        return command(command, Map.of());
    }

    /** Any command (a script that starts a JVM), with these environment variables set. */
    static ForkedJvm command(List<String> command, Map<String, String> environment) {
        try {
            Path out = Files.createTempFile("forked-jvm", ".out");
            Path err = Files.createTempFile("forked-jvm", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
                // Options from the environment would change the child JVM and print a line on stderr.
                builder.environment().remove("JAVA_TOOL_OPTIONS");
                builder.environment().remove("JDK_JAVA_OPTIONS");
                builder.environment().putAll(environment);
                Process process = builder.start();
                if (!process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    fail("forked JVM did not finish within " + BOUND_SECONDS + " s: " + command
                            + "\nstdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
                }
                return new ForkedJvm(process.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The value printed on a line {@code key=value} by the probe, or a failure showing the output. */
    public String value(String key) {
        for (String line : stdout.split("\n")) {
            if (line.startsWith(key + "=")) {
                return line.substring(key.length() + 1).trim();
            }
        }
        fail("no line " + key + "=... in the output\n" + this);
        return null;
    }

    long number(String key) {
        return Long.parseLong(value(key));
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
}
