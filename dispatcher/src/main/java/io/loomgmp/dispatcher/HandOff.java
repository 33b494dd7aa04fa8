package io.loomgmp.dispatcher;

import java.util.concurrent.atomic.LongAdder;

/**
 * The hand-off of a blocked carrier's P (Go's {@code handoffp} and {@code exitsyscall}): sysmon
 * takes the P from a carrier whose task blocks and hands it to an idle carrier or a new one
 * ({@link #handOff}); the blocked carrier, once its task returns, takes a P back or parks
 * ({@link #regainP}). In between, the carrier is <em>detached</em>: it runs a task without a P,
 * and the scheduler cannot quiesce until it returns.
 *
 * <pre>
 * sysmon: m's lease m.inTask ──retake (CAS)──► RETAKEN ──release (lock)──► null ──► handTo(carrier)
 * m:      task returns, leaveTask fails ──► regainP: its old P if idle, else any idle P, else park
 * </pre>
 * The CAS on the lease ({@link Lease}) decides the race between the task returning and sysmon
 * retaking: exactly one side wins, so a P never has two holders.
 *
 * <p>Failure: nothing here allocates. A carrier that cannot be started for the P is reported by
 * {@code Carriers.start}, which gives the P back to the idle list with its queue moved to the
 * global queue; a detached carrier that fails is counted back in by {@link #carrierFailed}.
 */
final class HandOff {
    private final Scheduling scheduling;
    /**
     * Carriers still running a task whose P sysmon handed to another carrier. Changed under the
     * scheduler lock; volatile for snapshots.
     */
    private volatile int detached;
    /** Ps taken from blocked carriers and handed to others. */
    final LongAdder handoffs = new LongAdder();

    HandOff(Scheduling scheduling) {
        this.scheduling = scheduling;
    }

    /**
     * Sysmon: takes {@code p} from carrier {@code m}, blocked in a task, and hands it to an idle
     * carrier or a new one, which it returns. Returns null, changing nothing, if no carrier can be
     * had (all {@code maxCarriers} exist and none is idle) or {@code m} is no longer in that task;
     * also null if a new carrier could not be started (then {@code p}'s work went to the global
     * queue and {@code p} is idle: see {@link Carriers#start}); and null when {@code p} was retired
     * ({@link ProcResize}): then it was taken and given up, its queue on the global queue.
     */
    Carrier handOff(Processor p, Carrier m) {
        Parking parking = scheduling.parking;
        Parking.Reservation carrier = null;
        boolean retired;
        scheduling.lock.lock();
        try {
            if (scheduling.shutdown.isTerminated()) {
                return null;
            }
            // A retired P (ProcResize) is not handed on: taken from the blocked carrier, its
            // queue goes to the global queue and it is given up, as its holder would at its next
            // schedule. No carrier is needed for that.
            retired = p.isRetired();
            if (!retired) {
                carrier = parking.reserveCarrier();
                if (carrier == null) {
                    return null;
                }
            }
            if (!p.retake(m)) {
                if (carrier != null) {
                    parking.unreserveCarrier(carrier);
                }
                return null;
            }
            p.release(); // in transit to the reserved carrier, or exclusively ours if retired
            detached = detached + 1; // until m's task returns (regainP)
            m.detachedFromP = true;
            handoffs.increment(); // before the P can run anything: snapshots see it first
        } finally {
            scheduling.lock.unlock();
        }
        if (retired) {
            scheduling.idle.giveBack(p); // queue to the global queue; Idle.putP counts the retired P out
            scheduling.idle.wakeP();
            return null;
        }
        return parking.handTo(carrier, p, false);
    }

    /**
     * Sysmon handed {@code m}'s P to another carrier while {@code m}'s task was blocked (Go's
     * exitsyscall). Takes that P back if it is idle, else any idle P; else parks as an idle
     * carrier until handed one. Returns false if {@code m} should end instead.
     */
    boolean regainP(Carrier m) {
        Processor old = m.p;
        scheduling.lock.lock();
        try {
            detached = detached - 1;
            m.detachedFromP = false;
            Idle idle = scheduling.idle;
            Processor p = idle.takeP(old) ? old : idle.getP();
            if (p != null) {
                p.acquire(m);
                return true;
            }
            m.p = null;
            scheduling.shutdown.signalIfQuiescent(); // close() may be waiting for this task to return
        } finally {
            scheduling.lock.unlock();
        }
        return scheduling.parking.park(m);
    }

    /** Must hold the scheduler lock. Carrier {@code m} failed: if it was detached, it is no longer. */
    void carrierFailed(Carrier m) {
        assert scheduling.lock.isHeldByCurrentThread();
        if (m.detachedFromP) {
            m.detachedFromP = false;
            detached = detached - 1;
        }
    }

    /** Carriers still in a task whose P was handed off. */
    int detached() {
        return detached;
    }
}
