package io.loomgmp.dispatcher.loom;

/**
 * How many Ps have an open preemption request, over every scheduler in the JVM: what a
 * preemption poll's fast path reads ({@code io.loomgmp.bridge.Gmp.checkpoint()}).
 *
 * <p>A public field so that the fast path is one {@code getstatic}: much of a start-up runs
 * interpreted, and there a poll through {@link LoomSupport#preemptPending()} (three calls, one
 * of them through an interface) took about 70 ns against 15 ns, over the millions of polls that a
 * Spring Boot application runs while it starts.
 *
 * <p>Invariant: written only by the dispatcher's {@code Preemption}, as each P's request flag
 * changes (see there). Code that wrote it anyway could only send polls down the slow path,
 * which checks the caller's own P, or delay a preemption until the count next changes.
 */
public final class PendingPreemptions {
    /** The count; non-zero while some request is open. */
    public static volatile int count;

    private PendingPreemptions() {
    }
}
