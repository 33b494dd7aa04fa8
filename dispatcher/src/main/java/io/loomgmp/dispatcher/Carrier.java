package io.loomgmp.dispatcher;

/**
 * An M: a daemon platform thread that runs tasks while it holds a P. There can be more carriers
 * than Ps (up to {@code maxCarriers}); a carrier without a P parks on the idle list until a waker
 * hands it one through {@link #nextP}.
 */
final class Carrier extends Thread {
    final Scheduling scheduling;

    /**
     * The P this carrier holds, or {@code null}. Written only by this carrier (under the scheduler
     * lock when it takes or gives up a P); read by this carrier, and by code running on it — a
     * virtual thread mounted here finds its P through the carrier locator, on the same OS thread.
     */
    Processor p;

    /** Whether this carrier is searching for work (counted in {@code Idle.spinning}). Owner only,
     * except that a waker sets it before handing over {@link #nextP}, which publishes it. */
    boolean spinning;

    /** The task this carrier is running, or {@code null}. Owner only (read on the same OS thread). */
    Runnable running;

    /** Set (under the scheduler lock) when this carrier left the idle list to end after its keep-alive. */
    boolean retired;

    /** A P handed to this parked carrier by a waker (Go's m.nextp). Volatile: the hand-over. */
    volatile Processor nextP;

    Carrier(Scheduling scheduling, String name) {
        super(null, null, name, 0, false);
        this.scheduling = scheduling;
        setDaemon(true);
    }

    @Override
    public void run() {
        scheduling.runCarrier(this);
    }
}
