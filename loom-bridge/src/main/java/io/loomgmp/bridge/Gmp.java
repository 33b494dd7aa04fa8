package io.loomgmp.bridge;

import io.loomgmp.bridge.runtime.JdkInternals;
import io.loomgmp.bridge.runtime.GmpState;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.loom.LoomSupport;
import io.loomgmp.dispatcher.loom.PendingPreemptions;

import java.util.Optional;

/** What an application can ask of loom-gmp at run time: the installed scheduler, and preemption polls. */
public final class Gmp {
    private Gmp() {
    }

    /**
     * The JVM-wide scheduler that the agent installed, on which every virtual thread runs; empty
     * when the JVM was not started with the loom-gmp agent, or the agent stepped aside on a JDK it
     * cannot put on GMP (it then said so on standard error).
     */
    public static Optional<GmpScheduler> scheduler() {
        return Optional.ofNullable(GmpState.installed());
    }

    /**
     * A preemption poll: if sysmon has asked the P under this virtual thread to give it up (the
     * thread has held it for longer than the time slice), yields, so that the virtual thread goes
     * to the global queue and the P runs something else. Under the agent, a call to this method,
     * behind its own fast path's test ({@code PendingPreemptions.count != 0}), is inserted into
     * every loop of the application's classes; call it by hand in a
     * long CPU-bound loop of code the agent leaves alone (JDK code, excluded packages, a JVM
     * without the agent running virtual threads on a per-builder scheduler).
     *
     * <p>When no request is open anywhere in the JVM, which is nearly always, it costs one
     * volatile read (a plain load on x86) and a branch not taken. While some other carrier's P
     * has one, it costs a few more loads (the hint naming the asked carrier, else this
     * carrier's P's flag through the carrier table), still without a call: only the carrier
     * that was asked takes the slow path. It is kept this small, far below the JIT's inlining
     * threshold for bytecode size, so that it is inlined into the polled loop; the rare rest is
     * a separate method so that it is not. It does nothing on a platform
     * thread, on a virtual thread of another scheduler, and when loom-gmp cannot see carriers (no
     * agent and no {@code --add-exports java.base/jdk.internal.access}). On a pinned virtual
     * thread (a native frame or a class initialiser below it) it takes the request but the yield
     * is a no-op: sysmon asks again after another time slice. It never throws.
     */
    public static void checkpoint() {
        // LoomSupport.preemptPending(), read directly: see PendingPreemptions. Then only the
        // carrier whose P was asked goes on to the slow path: a call reached on every turn while
        // some other P's request is open made the JIT spill the loop's values around it.
        if (PendingPreemptions.count != 0 && askedOfThisCarrier()) {
            checkpointSlow();
        }
    }

    /**
     * Some request is open: whether it is this carrier's P's. Inlined into the polled loop with
     * the rest of {@link #checkpoint()}, so it reads and compares and calls nothing that stays a
     * call ({@code currentCarrierThread} is an intrinsic; the carrier table a few loads). What
     * throws here (the first look loads classes) sends the poll to the slow path, which tries
     * again inside its own catch.
     */
    private static boolean askedOfThisCarrier() {
        try {
            return GmpState.carriersVisible() && LoomSupport.preemptAsked(JdkInternals.currentCarrierThread());
        } catch (Throwable failure) {
            return true;
        }
    }

    /**
     * Some request is open, maybe for another P: take this carrier's request, if it has one, and
     * yield. Never throws: the poll sits where the application's own code cannot throw (a loop's
     * back-edge), so whatever fails here (the yield's freeze when the heap is full: it throws
     * {@code OutOfMemoryError}; the first look at the carrier, which loads classes) stays here.
     * The virtual thread then runs on: a failed yield leaves it running on its carrier (the JDK
     * sets it back to running), and sysmon asks again after another time slice. A failed yield is
     * reported to the scheduler ({@link LoomSupport#yieldAtPollFailed}).
     */
    private static void checkpointSlow() {
        Thread carrier = null;
        try {
            if (Thread.currentThread().isVirtual() && GmpState.carriersVisible()) {
                carrier = JdkInternals.currentCarrierThread();
                if (LoomSupport.takePreemptRequest(carrier)) {
                    Thread.yield();
                }
            }
        } catch (Throwable failure) {
            if (carrier != null) {
                LoomSupport.yieldAtPollFailed(carrier, failure); // never throws
            }
        }
    }
}
