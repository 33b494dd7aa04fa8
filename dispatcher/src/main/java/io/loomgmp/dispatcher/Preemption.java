package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.PendingPreemptions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Preemption requests: sysmon asks the task running on a P for longer than the time slice to
 * give the P up. A request is honoured at the P's next scheduling decision (which then skips
 * {@code runnext} once, so a hand-off chain cannot starve the ring) and by a running virtual
 * thread at its next preemption poll (which yields).
 *
 * <p>{@link PendingPreemptions#count} counts the Ps with an open request, over every scheduler in the JVM. A
 * poll's fast path is one read of it (a volatile int read: a plain load on x86, which the JIT may
 * not hoist out of the polled loop, unlike a plain field); the slow path, taken only while some
 * request is open, looks up the caller's own P. Each P's flag changes only by CAS, and the count
 * moves with each successful CAS, so it is exact once the CASes land.
 */
final class Preemption {
    private static final VarHandle PENDING;
    private static final VarHandle REQUESTED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PENDING = lookup.findStaticVarHandle(PendingPreemptions.class, "count", int.class);
            REQUESTED = lookup.findVarHandle(Processor.class, "preemptRequested", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Preemption() {
    }

    /** Any thread: whether any P of any scheduler has an open request (the poll's fast path). */
    static boolean anyPending() {
        return PendingPreemptions.count != 0;
    }

    /**
     * Sysmon, or {@link ProcResize} retiring {@code p} (under the scheduler lock): asks the task
     * running on {@code p}, which the caller saw held as {@code seen}, to give the P up. Any
     * thread may call it: the flag changes only by CAS. Returns false if already asked, or if the P left that carrier meanwhile.
     *
     * <p>A request must not outlive its P's holder: a request left on an idle P would keep every
     * poll in the JVM on its slow path until the P is used again. The carrier that gives the P up
     * writes the holder (volatile) and then takes any request ({@code Idle.putP}); sysmon sets
     * the request (a volatile CAS) and then reads the holder. Sequential consistency makes at
     * least one of them see the other, so the request is taken by one or the other (jcstress:
     * {@code PreemptRequestVsIdle}).
     */
    static boolean request(Processor p, Lease seen) {
        if (!REQUESTED.compareAndSet(p, false, true)) {
            if (p.preemptRequested) {
                PendingPreemptions.asked = PendingPreemptions.LOOK_UP; // asked again: heal a stale hint
            }
            return false;
        }
        int before = (int) PENDING.getAndAdd(1);
        // After the increment: see PendingPreemptions.asked for why the hint cannot stay wrong.
        Thread thread = seen.carrier.thread;
        PendingPreemptions.asked = before == 0 && thread != null ? thread : PendingPreemptions.LOOK_UP;
        Lease now = p.holder();
        if (now == null || now.carrier != seen.carrier) {
            take(p); // the P went idle or to another carrier: withdraw (unless its owner took it)
            return false;
        }
        return true;
    }

    /** Any thread: takes {@code p}'s open request, if any; true if this call took it. */
    static boolean take(Processor p) {
        if (p.preemptRequested && REQUESTED.compareAndSet(p, true, false)) {
            PENDING.getAndAdd(-1);
            PendingPreemptions.asked = PendingPreemptions.LOOK_UP;
            return true;
        }
        return false;
    }

    /**
     * A preemption poll's check, on carrier thread {@code carrier}, once the count is non-zero:
     * whether the P that this carrier holds has an open request. First the hint
     * ({@link PendingPreemptions#asked}): with one request open, it usually names the asked
     * carrier, and every other carrier is done after one compare; else the carrier table. Go
     * poisons only the stack guard of the goroutine it wants to stop; this is our equivalent,
     * read through the carrier: a poll
     * on any other carrier returns false here, so only the asked carrier's poll takes the slow
     * path. It must stay small and call nothing that is not inlined: it runs at every turn of
     * every polled loop while any request is open, and a call there makes the JIT keep the loop's
     * values in memory across it (a saturated server's CPU-bound requests cost twice their CPU
     * that way). Plain reads of {@code m.p}: a stale P (handed off meanwhile) only sends this
     * poll to the slow path, which checks ownership, or leaves it for the next turn's read, which
     * follows the count's volatile read and so cannot be hoisted out of the loop.
     */
    static boolean askedAtPoll(Thread carrier) {
        Object hint = PendingPreemptions.asked; // see there: why it cannot stay wrong
        if (hint == carrier) {
            return true; // the one open request is this carrier's (the slow path checks)
        }
        if (hint != PendingPreemptions.LOOK_UP && PendingPreemptions.count == 1) {
            return false; // the one open request is another carrier's: one compare, no look-up
        }
        Carrier m = CarrierTable.of(carrier);
        if (m == null) {
            return false;
        }
        Processor p = m.p;
        return p != null && p.preemptRequested;
    }

    /**
     * A preemption poll's slow path, on carrier thread {@code carrier} (the virtual thread at the
     * poll runs on it): takes the request of the P this carrier holds, if any; true if the
     * virtual thread should now yield, which then goes to the yielded lane
     * ({@code Scheduling.submit} sees {@code yieldingAtPoll}). Only the carrier's own P counts: it
     * may have been handed to another carrier while this one's task was blocked.
     */
    static boolean takeAtPoll(Thread carrier) {
        Carrier m = CarrierTable.of(carrier);
        if (m == null || m.p == null || m.p.owner() != m || !take(m.p)) {
            return false;
        }
        m.yieldingAtPoll = true; // on m's own OS thread: the yield that follows goes to the yielded lane
        if (Events.on()) {
            Events.yieldingAtPoll(m);
            Events.preemptHonoured(m.p, m);
        }
        return true;
    }
}
