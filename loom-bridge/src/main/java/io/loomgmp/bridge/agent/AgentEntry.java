package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.AgentJar;
import io.loomgmp.bridge.runtime.AgentRelease;

import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The agent's {@code Premain-Class}. Compiled for Java 8 (see the module's pom) so that any JDK
 * can load it, instead of failing with an UnsupportedClassVersionError and a JVM abort. The real
 * agent, {@link GmpAgent}, is reached reflectively once the JDK is known to be a feature release
 * the build supports ({@link AgentRelease}). On any other JDK the agent does nothing: by default
 * it says so in one warning line and the application runs as without it, as {@link GmpAgent} does
 * for a supported JDK whose VirtualThread it cannot rewrite; with {@code strict=true} it refuses
 * to start ({@link UnsupportedJdkPolicy}).
 */
public final class AgentEntry {
    private AgentEntry() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) throws Throwable {
        AgentRelease release;
        try {
            release = AgentRelease.current();
        } catch (IllegalStateException e) {
            System.err.println(e.getMessage()); // a broken agent jar, not a JDK matter
            System.exit(1);
            return;
        }
        if (!release.supports(AgentRelease.runningFeature())) {
            boolean strict;
            try {
                strict = UnsupportedJdkPolicy.strict(arguments, System.getProperties());
            } catch (IllegalArgumentException badValue) {
                System.err.println(badValue.getMessage());
                System.exit(1);
                return;
            }
            if (UnsupportedJdkPolicy.report(unsupported(release), strict, AgentJar.path(), System.err) != 0) {
                System.exit(1);
            }
            return; // nothing installed: the JVM runs as without the agent
        }
        // A method handle called with its exact type, not Method.invoke: core reflection spins
        // its own method-handle adapters on first use (about 8 ms in every start-up), while this
        // shape, (Object, Object)void, is among those the JDK ships pre-generated.
        MethodHandles.lookup()
                .findStatic(Class.forName("io.loomgmp.bridge.agent.GmpAgent"), "premain",
                        MethodType.methodType(void.class, String.class, Instrumentation.class))
                .invokeExact(arguments, instrumentation);
    }

    /** Why this JDK is not supported, for {@link UnsupportedJdkPolicy}: the JDKs this build supports. */
    static String unsupported(AgentRelease release) {
        return "the loom-gmp " + release.version() + " agent supports " + release.supportedJdksText();
    }
}
