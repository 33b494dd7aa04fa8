package io.loomgmp.bridge.agent;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The one place that touches {@code jdk.internal.access}: {@code JavaLangAccess.currentCarrierThread()},
 * which sees through a mounted virtual thread to its carrier. Reached through method handles so
 * that the module compiles with {@code --release 25} and fails, when the package is not exported
 * to us, with a message naming the flag rather than an IllegalAccessError at first use.
 */
public final class CarrierAccess {
    private static final MethodHandle CURRENT_CARRIER = currentCarrierHandle();

    private CarrierAccess() {
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
            throw new IllegalStateException(BridgeAccess.missingAccessMessage(), e);
        } catch (Throwable e) {
            throw new IllegalStateException("JDK " + Runtime.version()
                    + " has no jdk.internal.access.JavaLangAccess.currentCarrierThread()", e);
        }
    }
}
