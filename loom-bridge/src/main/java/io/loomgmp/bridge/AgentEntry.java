package io.loomgmp.bridge;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;

/**
 * The agent's {@code Premain-Class}. Compiled for Java 8 (see the module's pom) so that any JDK
 * can load it and say which JDK loom-gmp needs, instead of failing with an
 * UnsupportedClassVersionError and a JVM abort. The real agent, {@link GmpAgent}, is reached
 * reflectively once the JDK is known to be 25 or newer.
 */
public final class AgentEntry {
    private static final int REQUIRED_FEATURE = 25;

    private AgentEntry() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) throws Throwable {
        String spec = System.getProperty("java.specification.version"); // "1.8", "17", "25"
        int feature = Integer.parseInt(spec.startsWith("1.") ? spec.substring(2) : spec);
        if (feature < REQUIRED_FEATURE) {
            System.err.println("loom-gmp: this JVM is JDK " + System.getProperty("java.version")
                    + " (" + System.getProperty("java.vm.vendor") + "); the loom-gmp agent needs JDK "
                    + REQUIRED_FEATURE);
            System.exit(1);
        }
        try {
            Class.forName("io.loomgmp.bridge.GmpAgent")
                    .getMethod("premain", String.class, Instrumentation.class)
                    .invoke(null, arguments, instrumentation);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
