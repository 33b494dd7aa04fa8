package io.loomgmp.bridge.agent;

import java.util.List;

/**
 * Whether this JVM posts virtual threads' mount and unmount transitions to JVMTI: what
 * {@code ./loomgmp run --fast} turns off with
 * {@code -XX:+UnlockExperimentalVMOptions -XX:-DoJVMTIVirtualThreadTransitions}.
 *
 * <p>Any JVMTI environment (and a {@code -javaagent} is one) makes HotSpot run its transition
 * protocol at every mount and unmount of a virtual thread, a cost a JVM without an agent does not
 * pay. With the flag off, HotSpot skips that protocol, which is what holds a virtual thread still
 * while a debugger or another JVMTI agent suspends it or reads its stack: such requests then fail
 * or see a stack that changes under them (FastModeIT). The agent says so at start-up
 * ({@link #NOTICE}); see docs/compatibility.md.
 */
final class JvmtiTransitions {
    static final String FLAG = "DoJVMTIVirtualThreadTransitions";
    /** The two options that turn the transitions off, in the order {@code java} needs them. */
    static final List<String> OFF_OPTIONS = List.of("-XX:+UnlockExperimentalVMOptions", "-XX:-" + FLAG);
    /** The start-up line when they are off. */
    static final String NOTICE = "loom-gmp: fast mode: JVMTI virtual-thread transitions are off (-XX:-" + FLAG
            + "): debuggers and JVMTI agents cannot reliably suspend or inspect virtual threads";

    private JvmtiTransitions() {
    }

    /**
     * Whether the JVM's arguments turn the transitions off: the last of {@code -XX:+FLAG},
     * {@code -XX:-FLAG} and {@code -XX:FLAG=true|false} decides, as it does for HotSpot. The
     * arguments are the JVM's own list ({@code jdk.internal.misc.VM.getRuntimeArguments()}), with
     * {@code JAVA_TOOL_OPTIONS}, {@code JDK_JAVA_OPTIONS}, {@code @argfiles} and
     * {@code -XX:VMOptionsFile} already expanded.
     */
    static boolean off(String[] runtimeArguments) {
        boolean on = true;
        for (String argument : runtimeArguments) {
            switch (argument) {
                case "-XX:+" + FLAG, "-XX:" + FLAG + "=true" -> on = true;
                case "-XX:-" + FLAG, "-XX:" + FLAG + "=false" -> on = false;
                default -> {
                }
            }
        }
        return !on;
    }

    /**
     * This JVM's arguments, read through {@code jdk.internal.misc.VM}, which {@link GmpAgent}
     * exports to the agent's module: {@code RuntimeMXBean.getInputArguments()} gives the same
     * list but starts the management machinery, about 20 ms of every start-up.
     *
     * @throws ReflectiveOperationException if this JDK has no such method (its shape is checked
     *         by the agent's tests on every supported JDK)
     */
    static String[] runtimeArguments() throws ReflectiveOperationException {
        return (String[]) Class.forName("jdk.internal.misc.VM").getMethod("getRuntimeArguments").invoke(null);
    }
}
