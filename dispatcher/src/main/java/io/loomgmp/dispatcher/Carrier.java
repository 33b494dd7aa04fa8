package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * An M: a platform thread, made by the scheduler's carrier {@code ThreadFactory}, that runs tasks
 * while it holds a P. There can be more carriers than Ps (up to {@code maxCarriers}); a carrier
 * without a P parks on the idle list until a waker hands it one through {@link #nextP}. Its life
 * cycle (start, park, retire, regaining a P after a hand-off, dying) is {@link Carriers}'; what
 * it does while it lives is {@link RunLoop}'s.
 *
 * <p>This object is the {@code Runnable} the factory's thread runs; {@link CarrierTable#of} finds it
 * from its thread.
 */
final class Carrier implements Runnable {
    final Scheduling scheduling;
    /** For messages and lease names; the thread's own name is the factory's choice. */
    final String name;

    /**
     * The thread the factory made for this carrier. Written once before that thread starts
     * ({@code Thread.start} publishes it to the thread itself); other threads read it only after
     * reading a P's holder or the idle list, which the carrier or a waker wrote after it.
     */
    Thread thread;

    /**
     * The P this carrier holds or last held, or {@code null}. Written only by this carrier (under
     * the scheduler lock when it takes or gives up a P); read by this carrier, and by code running
     * on it — a virtual thread mounted here finds its P through the carrier locator, on the same
     * OS thread. Sysmon may take the P while a task runs, so code running in a task must check the
     * P's {@link Processor#holder} (see {@link Lease}) before acting as its owner.
     */
    Processor p;

    /** Whether this carrier is searching for work (counted by {@link Idle}). Owner only,
     * except that a waker sets it before handing over {@link #nextP}, which publishes it. */
    boolean spinning;

    /** This carrier, reserved to be handed a P while parked ({@link Parking#reserveCarrier}); made once. */
    final Parking.Reservation reservation = new Parking.Reservation(this);

    /** This carrier's leases on its P: see {@link Lease}. */
    final Lease inLoop = new Lease(this, "in-loop");
    final Lease inTask = new Lease(this, "in-task");
    final Lease busy = new Lease(this, "busy");

    /**
     * The task this carrier took from a queue and has not finished running, or {@code null}.
     * Owner only (read on the same OS thread). If the carrier fails before running it,
     * {@link Carriers} puts it back on the global queue: a task is never lost.
     */
    Runnable inHand;

    /**
     * The task this carrier is running, or {@code null}. Written by the owner only: set with a
     * release store ({@link #runs}), so that a snapshot that reads it with {@link #runningTask()}
     * sees the task as its submitter built it; cleared plainly (a reader that still sees the task
     * shows what ran a moment ago). The owner reads it plainly.
     */
    Runnable running;

    /** This carrier's open JFR events and what its next {@code loomgmp.Run} event says. Owner only. */
    final Events.OfCarrier events = new Events.OfCarrier();

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

    /**
     * Submissions left before this carrier's next latency sample ({@link LatencySamples#shouldSample}).
     * Owner only: touched by code running on this carrier's OS thread (its loop, or a task or
     * virtual thread mounted on it, which finds this carrier through the carrier locator).
     */
    int untilSample;

    /**
     * This carrier's loop is running a due timer's task, whose timer was due at
     * {@link #firingTimerDue}: a task that it queues was made runnable by the timer, so its latency
     * sample counts from then, under the source {@code timer}. Owner only.
     */
    boolean firingTimer;
    /** When the timer being fired was due ({@code System.nanoTime()}); meaningful while {@link #firingTimer}. Owner only. */
    long firingTimerDue;

    /** Due timers taken out of a heap, to run once its lock is released. Owner only. */
    final Timer[] dueTimers = new Timer[64];

    /** Set (under the scheduler lock) when this carrier left the idle list to end after its keep-alive. */
    boolean retired;

    /** Set under the scheduler lock while this carrier is on the idle list. */
    boolean parked;

    /**
     * Sysmon handed this carrier's P to another carrier while its task was blocked, and the task
     * has not returned yet. Set and cleared under the scheduler lock.
     */
    boolean detachedFromP;

    /**
     * The OS thread id, or -1 where it cannot be known; for sysmon's native-blocking check.
     * Written once by this carrier before it first takes a P; sysmon reads it only after reading
     * that P's holder (a volatile write that follows this one), so the plain field is visible.
     */
    long osThreadId = -1;

    /** A P handed to this parked carrier by a waker (Go's m.nextp). Volatile: the hand-over. */
    volatile Processor nextP;

    Carrier(Scheduling scheduling, String name) {
        this.scheduling = scheduling;
        this.name = name;
    }

    /** The carrier thread's body. */
    @Override
    public void run() {
        osThreadId = NativeThreadState.currentThreadId();
        scheduling.carriers.live(this);
    }

    /** Owner only: {@code task} starts running. Release: see {@link #running}. */
    void runs(Runnable task) {
        RUNNING.setRelease(this, task);
    }

    /** Any thread: the task this carrier is running, or {@code null}; see {@link #running}. */
    Runnable runningTask() {
        return (Runnable) RUNNING.getAcquire(this);
    }

    void unpark() {
        LockSupport.unpark(thread);
    }

    /** The id of the carrier's thread, for events. */
    long threadId() {
        return thread.threadId();
    }

    @Override
    public String toString() {
        return name;
    }

    private static final VarHandle RUNNING;

    static {
        try {
            RUNNING = MethodHandles.lookup().findVarHandle(Carrier.class, "running", Runnable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
