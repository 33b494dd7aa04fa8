package io.loomgmp.bridge.agent;

/**
 * Whether this JVM posts virtual threads' mount and unmount transitions to JVMTI, which
 * {@code -XX:+UnlockExperimentalVMOptions -XX:-DoJVMTIVirtualThreadTransitions} turns off.
 *
 * <p>Any JVMTI environment (and a {@code -javaagent} is one) makes HotSpot run its transition
 * protocol at every mount and unmount of a virtual thread, a cost a JVM without an agent does not
 * pay (about a third of a park/unpark round trip on GMP). Benchmarks of other schedulers turn it
 * off; it is not safe to run with. On JDK 25.0.3, with the flag off: a debugger's suspend and
 * stack reads of virtual threads fail (JvmtiTransitionsIT); the soak hung in all three runs (in
 * its first {@code new Recording()}, carriers stuck mounting, where a dump was taken); and the
 * JDK's own ForkJoinPool, without the agent, left an interrupted sleeping virtual thread unrun
 * (the conformance test, in all three runs). So the agent warns at start-up ({@link #WARNING});
 * see docs/compatibility.md.
 */
final class JvmtiTransitions {
    static final String FLAG = "DoJVMTIVirtualThreadTransitions";
    /** The start-up line when they are off. */
    static final String WARNING = "loom-gmp: warning: -XX:-" + FLAG + " is not safe with virtual threads on JDK 25"
            + " (the JVM can hang when JFR starts, debuggers cannot suspend virtual threads): see docs/compatibility.md";

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
     * exports to the agent's module, in about 50 µs. {@code RuntimeMXBean.getInputArguments()}
     * gives the same list but starts the management machinery (asking the HotSpot MXBean for the
     * flag took 17 to 26 ms here), which every start-up would pay.
     *
     * @throws ReflectiveOperationException if this JDK has no such method (its shape is checked
     *         by the agent's tests on every supported JDK)
     */
    static String[] runtimeArguments() throws ReflectiveOperationException {
        return (String[]) Class.forName("jdk.internal.misc.VM").getMethod("getRuntimeArguments").invoke(null);
    }
}
