package io.loomgmp.dispatcher.loom;

import io.loomgmp.dispatcher.GmpScheduler;

import java.util.Objects;
import java.util.function.Function;

/**
 * The dispatcher's hooks for the Loom bridge only; {@code module-info} exports this package to
 * {@code io.loomgmp.bridge} alone. Applications use {@link GmpScheduler}'s public API; what
 * only the bridge may call ({@link #carrierLocator}, the preemption hooks) is here.
 *
 * <p>Each method reaches the dispatcher's package-private internals through the
 * {@link DispatcherAccess} that {@code GmpScheduler}'s static initialiser installs; this class's
 * initialiser initialises {@code GmpScheduler} first. The access sits in a static final field
 * and has a single implementation, so the JIT inlines each call down to the dispatcher's own code:
 * {@link #preemptPending()} stays one volatile read.
 */
public final class LoomSupport {
    private static final DispatcherAccess ACCESS = access();

    private LoomSupport() {
    }

    private static DispatcherAccess access() {
        try {
            // Runs GmpScheduler's static initialiser, which installs the access.
            Class.forName("io.loomgmp.dispatcher.GmpScheduler", true, LoomSupport.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("io.loomgmp.dispatcher.GmpScheduler not found", e);
        }
        return Objects.requireNonNull(SharedSecrets.dispatcherAccess(), "GmpScheduler installed no access");
    }

    /**
     * Replaces {@code scheduler}'s carrier locator (see {@link CarrierLocator}), which the Builder
     * set. The Loom bridge calls this to see through a mounted virtual thread to its carrier; set
     * it before submitting work from virtual threads.
     */
    public static void carrierLocator(GmpScheduler scheduler, CarrierLocator locator) {
        ACCESS.carrierLocator(Objects.requireNonNull(scheduler, "scheduler"), Objects.requireNonNull(locator, "locator"));
    }

    /**
     * Sets how {@code scheduler}'s JFR events find the thread a task belongs to: for a virtual
     * thread's continuation, that virtual thread (events carry its id, and a run that neither
     * yielded nor was preempted ended "finished" if the thread terminated, else "parked"); null
     * for anything else (the default for every task). Called while such an event is being
     * recorded, and by {@link io.loomgmp.dispatcher.GmpScheduler#snapshot()} to name the task
     * each P is running (any thread; what it throws names the task by its class instead). The
     * Loom bridge sets it.
     */
    public static void taskThread(GmpScheduler scheduler, Function<Runnable, Thread> taskThread) {
        ACCESS.taskThread(Objects.requireNonNull(scheduler, "scheduler"), Objects.requireNonNull(taskThread, "taskThread"));
    }

    /**
     * Whether the calling thread is one of {@code scheduler}'s carriers and is running
     * {@code task} itself: a task that re-submits itself from its own carrier is yielding. The
     * Loom bridge uses this to tell a {@code Thread.yield} (which queues behind the P's local work,
     * giving way to the global ready lane's work; see {@code Placement.YIELD}) from a
     * carrier waking another virtual thread (which is a hand-off).
     */
    public static boolean isCurrentTask(GmpScheduler scheduler, Runnable task) {
        return ACCESS.isCurrentTask(scheduler, task);
    }

    /**
     * The fast path of a preemption poll: whether sysmon has asked any P of any scheduler in this
     * JVM to give up its running task. One volatile read (a plain load on x86) once inlined.
     */
    public static boolean preemptPending() {
        return ACCESS.preemptPending();
    }

    /**
     * The second step of a preemption poll, once {@link PendingPreemptions#count} is non-zero:
     * whether the P that {@code carrier} holds, if it is a carrier of any GMP scheduler, has an
     * open preemption request. Reads only, and calls nothing that is not inlined: a poll on
     * another carrier, whose P nobody asked, returns here without a call in the polled loop.
     */
    public static boolean preemptAsked(Thread carrier) {
        return ACCESS.preemptAsked(carrier);
    }

    /**
     * The slow path of a preemption poll: if {@code carrier} is a carrier of any GMP scheduler
     * and its P has an open preemption request, takes the request and returns true; the caller
     * (running on that carrier) should then yield. {@code carrier} must be the carrier the
     * calling code runs on.
     */
    public static boolean takePreemptRequest(Thread carrier) {
        return ACCESS.takePreemptRequest(carrier);
    }

    /**
     * After {@link #takePreemptRequest} returned true: the yield that followed failed with
     * {@code failure} (a virtual thread's stack cannot be frozen when the heap is full), so the
     * virtual thread runs on. Forgets that it was yielding at a poll and reports the failure to
     * {@code carrier}'s scheduler. Never throws.
     */
    public static void yieldAtPollFailed(Thread carrier, Throwable failure) {
        ACCESS.yieldAtPollFailed(carrier, failure);
    }

    /**
     * Whether {@code carrier} is a carrier of any GMP scheduler whose P has tasks queued (its ring
     * or runnext). A racy heuristic, like the JDK's {@code ForkJoinWorkerThread.hasKnownQueuedWork}
     * that the agent answers with it: a virtual thread about to block should not spin while the
     * task that would release it waits in its own carrier's queue.
     */
    public static boolean hasQueuedWork(Thread carrier) {
        return ACCESS.hasQueuedWork(carrier);
    }

    /**
     * {@code scheduler}'s carriers alive, tasks running (on a P, or on a carrier whose P was
     * handed off) and tasks queued (global queue, rings and runnext slots): each read without a
     * lock and without allocating, racy as a snapshot's figures are, in microseconds rather than
     * a whole {@code snapshot()}: for the JDK's scheduler MXBean.
     */
    public static int carriers(GmpScheduler scheduler) {
        return ACCESS.carriers(scheduler);
    }

    /** See {@link #carriers}. */
    public static int runningTasks(GmpScheduler scheduler) {
        return ACCESS.runningTasks(scheduler);
    }

    /** See {@link #carriers}. */
    public static long queuedTasks(GmpScheduler scheduler) {
        return ACCESS.queuedTasks(scheduler);
    }
}
