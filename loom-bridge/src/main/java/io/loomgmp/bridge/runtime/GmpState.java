package io.loomgmp.bridge.runtime;

import io.loomgmp.dispatcher.GmpScheduler;

/**
 * What {@link io.loomgmp.bridge.Gmp} answers from: the scheduler the agent installed, and whether
 * {@link JdkInternals} works in this JVM. Kept here, not in {@code Gmp}, because the agent sets
 * them, and a method in {@code Gmp}'s package, which the module exports, would be API.
 */
public final class GmpState {
    private static volatile GmpScheduler installed;
    /** 0: not known yet; 1: {@link JdkInternals} works in this JVM; 2: it does not. */
    private static volatile int carriersVisible;

    private GmpState() {
    }

    /** The JVM-wide scheduler the agent installed, or null. */
    public static GmpScheduler installed() {
        return installed;
    }

    public static void install(GmpScheduler scheduler) {
        carriersVisible(); // decided now, at start-up, not at a poll under memory pressure
        installed = scheduler;
    }

    /**
     * Whether {@link JdkInternals} works in this JVM, decided at the first slow-path poll (or at
     * {@link #install}), so that a JVM without access pays for the failure once, not at every
     * poll. An {@code OutOfMemoryError} while loading the class decides nothing: it is thrown, and
     * the next poll tries again.
     */
    public static boolean carriersVisible() {
        int visible = carriersVisible;
        if (visible == 0) {
            try {
                JdkInternals.check();
                visible = 1;
            } catch (LinkageError noAccess) {
                // ExceptionInInitializerError the first time, NoClassDefFoundError afterwards.
                visible = 2;
            }
            carriersVisible = visible;
        }
        return visible == 1;
    }
}
