package io.loomgmp.dispatcher;

import io.loomgmp.jfr.CarrierSpinEvent;

/**
 * An M: a daemon platform thread that runs tasks while it holds a P. There can be more carriers
 * than Ps (up to {@code maxCarriers}); a carrier without a P parks on the idle list until a waker
 * hands it one through {@link #nextP}.
 */
final class Carrier extends Thread {
    final Scheduling scheduling;

    /**
     * The P this carrier holds or last held, or {@code null}. Written only by this carrier (under
     * the scheduler lock when it takes or gives up a P); read by this carrier, and by code running
     * on it — a virtual thread mounted here finds its P through the carrier locator, on the same
     * OS thread. Sysmon may take the P while a task runs, so code running in a task must check the
     * P's {@link Processor#holder} (see {@link Lease}) before acting as its owner.
     */
    Processor p;

    /** Whether this carrier is searching for work (counted in {@code Idle.spinning}). Owner only,
     * except that a waker sets it before handing over {@link #nextP}, which publishes it. */
    boolean spinning;

    /** This carrier's leases on its P: see {@link Lease}. */
    final Lease inLoop = new Lease(this, "in-loop");
    final Lease inTask = new Lease(this, "in-task");
    final Lease busy = new Lease(this, "busy");

    /** The task this carrier is running, or {@code null}. Owner only (read on the same OS thread). */
    Runnable running;

    /** Where the task about to run came from, for the {@code loomgmp.Run} event. Owner only. */
    String runSource;

    /** How the running task ended, when known ({@code RunEvent.END_*}), else null. Owner only. */
    String runEnd;

    /** The open {@code loomgmp.CarrierSpin} event while this carrier spins during a recording. Owner only. */
    CarrierSpinEvent spinEvent;

    /**
     * A task ran on this carrier since its last own JFR event, so a virtual thread may have used
     * the event writer it shares with this carrier; see {@link FlightRecording#beforeCarrierEvent}.
     * Owner only.
     */
    boolean eventWriterShared;

    /**
     * The running task's virtual thread is yielding at a preemption poll, so its re-submission
     * goes to the global yielded lane. Set by the poll on this carrier's thread, consumed by that
     * re-submission (same thread) or cleared when the next task starts. Owner only.
     */
    boolean yieldingAtPoll;

    /**
     * This carrier is starting another carrier (waiting in the kernel for it to run): sysmon must
     * not count it as blocked in its task. Written by this carrier, read by sysmon.
     */
    volatile boolean startingCarrier;

    /** Due timers taken out of a heap, to run once its lock is released. Owner only. */
    final Timer[] dueTimers = new Timer[64];

    /** Set (under the scheduler lock) when this carrier left the idle list to end after its keep-alive. */
    boolean retired;

    /**
     * The OS thread id, or -1 where it cannot be known; for sysmon's native-blocking check.
     * Written once by this carrier before it first takes a P; sysmon reads it only after reading
     * that P's holder (a volatile write that follows this one), so the plain field is visible.
     */
    long osThreadId = -1;

    /** A P handed to this parked carrier by a waker (Go's m.nextp). Volatile: the hand-over. */
    volatile Processor nextP;

    Carrier(Scheduling scheduling, String name) {
        super(null, null, name, 0, false);
        this.scheduling = scheduling;
        setDaemon(true);
    }

    @Override
    public void run() {
        osThreadId = NativeThreadState.currentThreadId();
        scheduling.runCarrier(this);
    }
}
