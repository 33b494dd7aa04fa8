package io.loomgmp.bridge;

import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The agent's {@code Premain-Class}. Compiled for Java 8 (see the module's pom) so that any JDK
 * can load it and say which JDKs loom-gmp supports, instead of failing with an
 * UnsupportedClassVersionError and a JVM abort. The real agent, {@link GmpAgent}, is reached
 * reflectively once the JDK is known to be one the build supports ({@link AgentRelease}).
 */
public final class AgentEntry {
    private AgentEntry() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) throws Throwable {
        AgentRelease release;
        try {
            release = AgentRelease.current();
        } catch (IllegalStateException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        if (!release.supports(AgentRelease.runningFeature())) {
            // A refusal, not a silent fallback: the user asked for GMP and would not get it.
            System.err.println(refusal(release, AgentJar.path()));
            System.exit(1);
        }
        // A method handle called with its exact type, not Method.invoke: core reflection spins
        // its own method-handle adapters on first use (about 8 ms in every start-up), while this
        // shape, (Object, Object)void, is among those the JDK ships pre-generated.
        MethodHandles.lookup()
                .findStatic(Class.forName("io.loomgmp.bridge.GmpAgent"), "premain",
                        MethodType.methodType(void.class, String.class, Instrumentation.class))
                .invokeExact(arguments, instrumentation);
    }

    /** What the agent prints on a JDK it does not support: the JDK found, the ones supported, the way out. */
    static String refusal(AgentRelease release, String agentJar) {
        return "loom-gmp: the loom-gmp " + release.version() + " agent does not support this JDK: "
                + AgentRelease.runningJdk() + ".\n"
                + "loom-gmp: it supports " + release.supportedJdksText() + ".\n"
                + "loom-gmp: to run without loom-gmp, remove the option -javaagent:" + agentJar
                + " (and its arguments): the application then runs on the JDK's default virtual-thread scheduler.";
    }
}
