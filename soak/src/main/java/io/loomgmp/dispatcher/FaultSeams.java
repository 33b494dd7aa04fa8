package io.loomgmp.dispatcher;

/**
 * The soak's way to the test seams of {@link GmpScheduler.Builder}, which are package-private: a
 * carrier failure injected in each carrier's loop, and a failure injected into a shrinking
 * {@code setProcs}'s timer moves. It reaches them by sitting in the dispatcher's package, which
 * works on the class path only, where this class and the dispatcher share a class loader and so a
 * run-time package ({@code ./loomgmp soak} puts the agent jar, which holds the dispatcher, and the
 * soak's jar on the class path). Not part of the dispatcher: it ships in the soak's jar alone.
 */
public final class FaultSeams {
    private FaultSeams() {
    }

    /**
     * {@code fault} runs in each carrier's loop before each task, outside it; what it throws is a
     * carrier failure (the carrier hands its P and its task back, reports the failure and ends).
     * Must be set before the first task: the builder's setting is read as carriers start.
     *
     * @throws IllegalStateException if this class cannot reach the dispatcher's package (the
     *         dispatcher on the module path, or in another class loader)
     */
    public static GmpScheduler.Builder injectLoopFault(GmpScheduler.Builder builder, Runnable fault) {
        try {
            return builder.injectLoopFault(fault);
        } catch (IllegalAccessError e) {
            throw unreachable(e);
        }
    }

    /** {@code fault} runs before each timer that a shrinking {@code setProcs} moves; what it throws stops the move there. */
    public static GmpScheduler.Builder injectTimerMoveFault(GmpScheduler.Builder builder, Runnable fault) {
        try {
            return builder.injectTimerMoveFault(fault);
        } catch (IllegalAccessError e) {
            throw unreachable(e);
        }
    }

    /** Retired Ps that a carrier (or sysmon, or a hand-over) has not given up yet: 0 once the scheduler rests. */
    public static int retiringProcs(GmpScheduler scheduler) {
        try {
            return scheduler.scheduling.resize.retiring();
        } catch (IllegalAccessError e) {
            throw unreachable(e);
        }
    }

    private static IllegalStateException unreachable(IllegalAccessError e) {
        return new IllegalStateException("the soak cannot reach the dispatcher's test seams: the dispatcher ("
                + GmpScheduler.class.getProtectionDomain().getCodeSource() + ", " + GmpScheduler.class.getModule()
                + ") must be on the class path, in the soak's class loader; run ./loomgmp soak", e);
    }
}
