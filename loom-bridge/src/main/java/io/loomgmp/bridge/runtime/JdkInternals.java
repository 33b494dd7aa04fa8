package io.loomgmp.bridge.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The one place that touches the JDK's internals, and what the bridge tells the user when it may
 * not ({@link #JVM_FLAGS}, {@link #missingAccessMessage}). It uses {@code jdk.internal.access}: {@code JavaLangAccess.currentCarrierThread()},
 * which sees through a mounted virtual thread to its carrier. Reached through method handles so
 * that the module compiles with {@code --release 25} and fails, when the package is not exported
 * to us, with a message naming the flag rather than an IllegalAccessError at first use.
 */
public final class JdkInternals {
    /** The JVM flags the per-builder API needs when the agent is not used. */
    public static final String JVM_FLAGS =
            "--add-opens java.base/java.lang=ALL-UNNAMED --add-exports java.base/jdk.internal.access=ALL-UNNAMED";

    private static final MethodHandle CURRENT_CARRIER = currentCarrierHandle();

    private JdkInternals() {
    }

    /** On a virtual thread: its carrier; on a platform thread: the thread itself. */
    public static Thread currentCarrierThread() {
        try {
            return (Thread) CURRENT_CARRIER.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException("JavaLangAccess.currentCarrierThread() failed", e);
        }
    }

    /** Triggers class initialisation, so that missing access is reported up front. */
    public static void check() {
        // CURRENT_CARRIER is resolved by the static initialiser.
    }

    private static MethodHandle currentCarrierHandle() {
        try {
            Class<?> secrets = Class.forName("jdk.internal.access.SharedSecrets");
            Class<?> jlaClass = Class.forName("jdk.internal.access.JavaLangAccess");
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            Object jla = lookup.findStatic(secrets, "getJavaLangAccess", MethodType.methodType(jlaClass)).invoke();
            return lookup.findVirtual(jlaClass, "currentCarrierThread", MethodType.methodType(Thread.class))
                    .bindTo(jla);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(JdkInternals.missingAccessMessage(), e);
        } catch (Throwable e) {
            throw new IllegalStateException("JDK " + Runtime.version()
                    + " has no jdk.internal.access.JavaLangAccess.currentCarrierThread()", e);
        }
    }

    /** What to tell the user when that access is missing: the flags for this module, or the agent. */
    public static String missingAccessMessage() {
        Module module = JdkInternals.class.getModule();
        String target = module.isNamed() ? module.getName() : "ALL-UNNAMED";
        return "loom-gmp needs access to JDK internals to run virtual threads on its scheduler: start the JVM with "
                + "--add-opens java.base/java.lang=" + target
                + " --add-exports java.base/jdk.internal.access=" + target
                + " (or use the agent: -javaagent:loom-gmp-agent.jar, which needs neither)";
    }
}
