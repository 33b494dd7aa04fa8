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

    /** What {@link #asked} holds when the poll must look its carrier's P up. */
    public static final Object LOOK_UP = new Object();

    /**
     * A hint for the poll's second step, read only while {@link #count} is non-zero: the carrier
     * thread whose P has the one open request, or {@link #LOOK_UP} when that is not known (more
     * than one request was open since the count was last zero, or one was taken). A poll on the
     * carrier it names goes to the slow path, which checks; a poll on any other carrier, with the
     * count at 1, knows it was not asked from one compare, without looking up its own P (a few
     * loads more, at every loop turn while the request is open, which under saturation is about
     * a tenth of the time: the asked carrier is often descheduled by the OS before its poll).
     *
     * <p><b>Why a stale hint cannot last.</b> Only a request that raised the count from 0 names a
     * carrier, after its increment; every take writes {@code LOOK_UP} after its decrement, as does
     * every request that found the count non-zero or its P already asked. So the hint names a
     * carrier other than the one asked only while some requester is between its increment and its
     * write, or when such a write was delayed past a take and a newer request (two schedulers'
     * sysmons, or a resize beside sysmon); sysmon asks again after each time slice while the P's
     * task runs on, and that writes {@code LOOK_UP}. Until then the asked carrier's task is
     * preempted only at its next scheduling decision: a delay, never a wrong yield, since the
     * slow path checks the carrier's own P.
     */
    public static volatile Object asked = LOOK_UP;

    private PendingPreemptions() {
    }
}
