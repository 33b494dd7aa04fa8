package io.loomgmp.bridge.agent;

import io.loomgmp.testsupport.Fork;
import io.loomgmp.testsupport.Forked;
import io.loomgmp.testsupport.Required;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bridge's ITs' JVMs: this module's test classes with the agent jar, as a {@code -javaagent} or
 * as a library, forked by the shared {@link Fork} (the running JDK, within its bound, without
 * JAVA_TOOL_OPTIONS and JDK_JAVA_OPTIONS). The ITs that run the jar alone, another JDK or the
 * launcher script call {@link Fork} themselves.
 */
public final class ForkedJvm {
    static final Path AGENT_JAR = Required.path("loomgmp.agent.jar");
    static final Path TEST_CLASSES = Required.path("loomgmp.test.classes");

    private ForkedJvm() {
    }

    /** {@code java -javaagent:<agent>[=agentArguments] <jvmArgs...> -cp <test classes> <mainClass> <args...>}. */
    static Forked withAgent(String agentArguments, List<String> jvmArgs, Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add("-javaagent:" + AGENT_JAR + (agentArguments == null ? "" : "=" + agentArguments));
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(TEST_CLASSES.toString());
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        return Fork.java(command).run();
    }

    /** {@code java <jvmArgs...> -cp <test classes>:<agent jar as a library> <mainClass> <args...>}. */
    public static Forked withoutAgent(List<String> jvmArgs, Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>(jvmArgs);
        command.add("-cp");
        command.add(TEST_CLASSES + File.pathSeparator + AGENT_JAR);
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        return Fork.java(command).run();
    }
}
