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
 * <p>The agent also reads it directly, from the application's own code: each loop gets
 * {@code getstatic PendingPreemptions.count; ifeq head; invokestatic Gmp.checkpoint()V; goto head}
 * in place of its {@code goto} back-edge, or the same guard at its header (see {@code PollWriter}),
 * so an interpreted loop pays a field read and a branch, not a call.
 *
 * <p>Invariant: written only by the dispatcher's {@code Preemption}, as each P's request flag
 * changes (see there). Code that wrote it anyway could only send polls down the slow path,
 * which checks the caller's own P, or delay a preemption until the count next changes.
 */
public final class PendingPreemptions {
    /**
     * The count; non-zero while some request is open.
     *
     * <p><b>Volatile, and why.</b> The polls read it in loops the JIT compiles: a plain field
     * could be read once before the loop (C2 may hoist a loop-invariant plain load, as no write
     * in the loop can change it) and never again, so a compiled loop would never see a request.
     * A volatile read cannot be hoisted or merged with another: the loop reads memory on every
     * turn. On x86 and AArch64 that is a plain load (ldar on AArch64), no fence.
     *
     * <p><b>Ordering.</b> Sysmon sets a P's flag ({@code Processor.preemptRequested}, by a
     * volatile CAS) and then increments this count (a volatile getAndAdd); a poll reads the count
     * (volatile) and, if non-zero, reads and CASes its own P's flag. A read that sees the
     * increment synchronizes-with it, so the flag's CAS, earlier in sysmon's program order,
     * happens-before the poll's look at the flag: the poll finds it set. A read that comes
     * before the increment sees the old value and falls through; the next turn's read, a new
     * volatile read, sees it once it is in the synchronization order, and nothing in between
     * waits for the target: the requester writes both without a lock. Withdrawing a request
     * (a CAS of the flag to false, then a decrement) keeps the count at least the number of
     * flags set, so a zero count never hides a set flag except in the requester's own step
     * between its CAS and its increment.
     */
    public static volatile int count;

    private PendingPreemptions() {
    }
}
