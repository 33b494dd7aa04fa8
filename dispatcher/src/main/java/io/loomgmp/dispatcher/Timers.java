package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The scheduler's timers (Go's {@code time.go}): each P has a heap of them ({@link TimerHeap},
 * {@link Timer}); this class adds them, runs the due ones, keeps a carrier sleeping until the
 * earliest, and moves a retired P's.
 * <ul>
 *   <li><b>Adding</b> ({@link #schedule}): into the heap of the caller's P (any P for a thread
 *       that is not one of our carriers). A timer that is now its heap's earliest may need someone
 *       awake for it ({@link #added}): the timer sleeper if it would wake later, a carrier if
 *       nobody sleeps for the timers, sysmon if every P is busy (the task in its way gives way).</li>
 *   <li><b>Running</b> ({@link #runDue}): at the top of every schedule, a carrier runs its own P's
 *       due timers; one that finds nothing else to do runs the other Ps' ({@link #runOthersDue}),
 *       as Go's stealWork does. A timer's task runs on the carrier and, for a virtual thread's
 *       timeout, unparks it into this P's runnext; no more at once than the ring has room for.</li>
 *   <li><b>Sleeping</b>: at most one parked carrier is the <em>timer sleeper</em> (Go's M blocked
 *       in netpoll until {@code pollUntil}): it parks until the earliest timer of any P, then
 *       takes an idle P and runs the due timers ({@link #sleepForTimers}). The carrier that parks
 *       while timers exist and nobody sleeps for them takes the role ({@link #offerSleep}); one
 *       that gets work passes it on ({@link #passSleep}).</li>
 *   <li><b>Moving</b> ({@link #move}): {@code setProcs} moves a retired P's timers to the active
 *       ones; a move that fails leaves them in the retired P's heap, which every carrier still
 *       runs, and sysmon moves them again.</li>
 * </ul>
 *
 * <h2>Why a timer added while the sleeper parks is never slept past</h2>
 * Both sides publish first and look second, each with volatile accesses (so the two store→load
 * pairs are ordered as if sequentially consistent):
 * <pre>
 * adder ({@link #schedule} → {@link #added})        sleeper ({@link #sleepForTimers})
 *   add the timer to its heap (lock; volatile)      sleeperDeadline = now + delay (volatile)
 *   read sleeper and sleeperDeadline               read every heap's earliest again ({@link #delay})
 *   earlier than the deadline: unpark the sleeper  an earlier one: do not park, recompute
 * </pre>
 * Either the adder sees the new deadline and unparks the sleeper (an unpark before the park makes
 * the park return at once), or the sleeper's second look sees the timer. With no sleeper, the
 * adder wakes a carrier, which parks as the sleeper if it finds nothing to run. jcstress:
 * {@code TimerAddVsSleeperPublish}.
 *
 * <h2>Failure</h2>
 * Adding throws {@link RejectedExecutionException} once the scheduler has terminated (or is closed,
 * for a thread not ours), or an {@code OutOfMemoryError} from the heap, with nothing added. What a
 * timer's task throws is the timer's ({@link Timer}, a {@code FutureTask}). The sleeper's role and
 * the wake-ups allocate nothing. A move's failure is reported and retried ({@link #move}).
 */
final class Timers {
    /** Largest delay a timer accepts; longer ones are clamped (a timer that far out never fires in practice). */
    static final long MAX_TIMER_DELAY_NANOS = Long.MAX_VALUE >> 2;

    private static final VarHandle SLEEPER;

    static {
        try {
            SLEEPER = MethodHandles.lookup().findVarHandle(Timers.class, "sleeper", Carrier.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Scheduling scheduling;
    /** The parked carrier that sleeps until the earliest timer, or null. Set under the lock, cleared by CAS. */
    private volatile Carrier sleeper;
    /** When the timer sleeper wakes up: a {@code System.nanoTime()} value. Written by the sleeper. */
    private volatile long sleeperDeadline;

    Timers(Scheduling scheduling) {
        this.scheduling = scheduling;
    }

    // ---------------------------------------------------------------- adding

    /**
     * Any thread. Runs {@code task} on a carrier once {@code delayNanos} have passed: a timer in
     * the heap of the caller's P (any P for a thread that is not one of our carriers). The
     * scheduling loop of whichever carrier holds that P runs it when due, or another P steals it.
     *
     * @throws RejectedExecutionException once the scheduler has terminated, or is closed and the
     *         caller is not one of our carriers
     */
    Future<?> schedule(Runnable task, long delayNanos) {
        Scheduling s = scheduling;
        Carrier m = s.currentCarrier();
        // As for submit: once closed, only our carriers' tasks (the continuation of accepted
        // work: a virtual thread that sleeps while the scheduler shuts down) add timers.
        if (s.shutdown.isTerminated() || s.shutdown.isClosed() && m == null) {
            throw s.shutdown.rejected();
        }
        Processor p = m != null && m.p != null ? m.p : s.allp[ThreadLocalRandom.current().nextInt(s.procs)];
        long when = System.nanoTime() + Math.clamp(delayNanos, 0, MAX_TIMER_DELAY_NANOS);
        Timer timer = p.timers.add(task, when);
        if (timer == null) {
            // p was retired (setProcs): its heap takes no more timers, its own move elsewhere.
            // P0 is never retired.
            p = s.allp[0];
            timer = p.timers.add(task, when);
        }
        if (m == null && s.shutdown.isClosed() && timer.cancel(false)) {
            // Raced with close (our add, then our read of closed; close's write of closed, then
            // its read of the pending timers: one sees the other). Cancelling it tells shutdown
            // (TimerHeap.cancelled), which may have counted it pending and now waits for it.
            throw s.shutdown.rejected();
        }
        if (p.timers.isEarliest(timer)) {
            // A virtual thread's timeout is added by its carrier as it unmounts: if that P has
            // nothing else to do, the carrier is about to park, and then sleeps for this timer.
            boolean adderWillPark = m != null && Thread.currentThread() == m.thread && m.p == p
                    && p.runQueue.isEmpty() && s.global.isEmpty();
            added(when, adderWillPark);
        }
        return timer;
    }

    /** Any thread: delay from {@code now} to the earliest timer of any P (0 if due), or -1 if none. */
    long delay(long now) {
        long delay = -1;
        for (int i = 0, n = scheduling.allocated; i < n; i++) { // retired Ps too: see ProcResize's failure model
            TimerHeap heap = scheduling.allp[i].timers;
            if (!heap.isEmpty()) {
                long d = Math.max(0, heap.nextWhen() - now);
                if (delay < 0 || d < delay) {
                    delay = d;
                }
            }
        }
        return delay;
    }

    /** Any thread: timers waiting to fire on every P made (cancelled ones not counted). */
    int pending() {
        int pending = 0;
        for (int i = 0, n = scheduling.allocated; i < n; i++) {
            pending += scheduling.allp[i].timers.pending();
        }
        return pending;
    }

    /** Any thread: whether a timer of any P is due at {@code now}. */
    boolean anyDue(long now) {
        for (int i = 0, n = scheduling.allocated; i < n; i++) {
            if (scheduling.allp[i].timers.hasDue(now)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Any thread, after adding a timer due at {@code when} that is now the earliest of its heap
     * (Go's wakeNetPoller). Unparks the timer sleeper if it would wake later than {@code when}.
     * With no sleeper, wakes a carrier that will become one (unless the adder's carrier is about
     * to park anyway: then it becomes the sleeper itself).
     */
    void added(long when, boolean adderWillPark) {
        if (scheduling.idle.idleProcs() == 0) {
            scheduling.sysmon.timerAdded(when); // the P's task may be in the timer's way
        }
        Carrier sleeper = this.sleeper;
        if (sleeper != null) {
            if (when - sleeperDeadline < 0) {
                sleeper.unpark();
            }
        } else if (!adderWillPark) {
            scheduling.idle.wakeP();
        }
    }

    // ---------------------------------------------------------------- running

    /**
     * Carrier {@code m}, in its scheduling loop: runs the timers of {@code heap} (its own P's or
     * another's) that are due at {@code now}. Their tasks run here, on the carrier; a virtual
     * thread's timeout unparks it into this P's runnext. Returns whether any ran.
     */
    boolean runDue(Carrier m, TimerHeap heap, long now) {
        boolean ran = false;
        Timer[] due = m.dueTimers;
        Processor p = m.p;
        int n;
        int room;
        do {
            // No more than the ring has room for: a burst of expiries must not overflow to the
            // global queue, behind outside work; the rest stay due in the heap, first in line at
            // the next schedule.
            room = Math.min(due.length, RunQueue.CAPACITY - p.runQueue.size() - 1);
            if (room <= 0) {
                break;
            }
            n = heap.takeDue(now, due, room);
            for (int i = 0; i < n; i++) {
                Timer timer = due[i];
                due[i] = null;
                // What the timer's task queues was made runnable by the timer: its latency sample
                // counts from the due time (LatencySamples.queued reads these on this same thread).
                m.firingTimer = true;
                m.firingTimerDue = timer.when;
                try {
                    timer.run(); // FutureTask: a no-op if cancelled meanwhile
                } finally {
                    m.firingTimer = false;
                    // As after any task (runTask): a cancel(true) that came while it ran (FutureTask
                    // delivers that interrupt before run returns), or a task that interrupted its
                    // own thread, must not leave the carrier interrupted for the next task.
                    Thread.interrupted();
                }
                ran = true; // what the task threw was reported as it was thrown (Timer.setException)
            }
        } while (n == room);
        return ran;
    }

    /**
     * Owner of {@code p}, in its scheduling loop (step 6 of {@code RunLoop.findRunnable}, as Go's
     * stealWork runs other Ps' timers): runs the due timers of the other Ps, whose carriers may be
     * parked, blocked in a task, or deep in a time slice; their tasks land on {@code p}. Returns
     * whether any ran.
     */
    boolean runOthersDue(Carrier m, Processor p) {
        int n = scheduling.allocated; // retired Ps too: a timer that could not be moved stays there
        if (n == 1) {
            return false;
        }
        long now = 0;
        boolean ran = false;
        for (int i = 0; i < n; i++) {
            Processor other = scheduling.allp[i];
            if (other != p && !other.timers.isEmpty()) {
                if (now == 0) {
                    now = System.nanoTime();
                }
                if (other.timers.hasDue(now)) {
                    ran |= runDue(m, other.timers, now);
                }
            }
        }
        return ran;
    }

    // ---------------------------------------------------------------- sleeping

    /**
     * Must hold the scheduler lock; {@code m} was just put on the idle list. If timers exist and no
     * carrier sleeps for them, {@code m} will: it parks until the earliest one.
     */
    void offerSleep(Carrier m) {
        assert scheduling.lock.isHeldByCurrentThread();
        if (sleeper == null) {
            long now = System.nanoTime();
            long delay = delay(now);
            if (delay >= 0) {
                sleeperDeadline = now + delay;
                sleeper = m;
            }
        }
    }

    /** Any thread: whether {@code m} is the timer sleeper. */
    boolean isSleeper(Carrier m) {
        return sleeper == m;
    }

    /** Carrier {@code m} gives up the timer sleeper's role, if it has it. */
    void stopSleep(Carrier m) {
        if (sleeper == m) {
            SLEEPER.compareAndSet(this, m, null);
        }
    }

    /**
     * Must hold the scheduler lock. Carrier {@code m} stops sleeping for the timers because it
     * has work now (a waker handed it a P, perhaps for a long task), or it fails: the role
     * goes to another parked carrier, if there is one, which is unparked to sleep until the
     * earliest timer. Without this, a sleeper that a hand-off took for a long task left the timers
     * of idle Ps to nobody until some carrier parked again (sysmon's rule for overdue timers is
     * the net below this: see {@code Retake.round}).
     */
    void passSleep(Carrier m) {
        assert scheduling.lock.isHeldByCurrentThread();
        if (sleeper != m) {
            return;
        }
        sleeper = null;
        for (Carrier next : scheduling.idle.idleMs) { // the most recently parked first: its cache is the warmest
            if (next != m) {
                offerSleep(next);
                if (sleeper == next) {
                    next.unpark(); // its park loop sees the role (Carriers.takeNextP)
                }
                return;
            }
        }
    }

    /** Any thread: the carrier sleeping for the timers, or null. */
    Carrier sleeper() {
        return sleeper;
    }

    /**
     * Carrier {@code m}, parked on the idle list as the timer sleeper (Go's M blocked in netpoll
     * until {@code pollUntil}): parks until the earliest timer of any P, then takes an idle P to
     * run the due timers, as a spinner. Returns that P, or {@code null} to be called again (woken
     * early by an earlier timer or a waker; or the role was given up: no timers are left, or
     * every P is busy and their holders run the timers at their next schedule).
     */
    Processor sleepForTimers(Carrier m) {
        long now = System.nanoTime();
        long delay = delay(now);
        Idle idle = scheduling.idle;
        if (delay < 0) {
            stopSleep(m);
            return null;
        }
        if (delay > 0) {
            // Publish the deadline, then look again: a timer added meanwhile either sees the new
            // deadline (and unparks us if it is earlier) or is seen by this second look.
            sleeperDeadline = now + delay;
            long again = delay(System.nanoTime());
            if (again >= 0 && again < delay - (System.nanoTime() - now)) {
                return null; // an earlier timer arrived: recompute
            }
            LockSupport.parkNanos(this, delay);
            return null;
        }
        scheduling.lock.lock();
        try {
            // Handed a P meanwhile, or ending: takeNextP sees it. Or reserved by a waker, which
            // took us off the idle list and hands us a P as soon as it has let the lock go: we
            // must wait for that P rather than take another, or two Ps (and two spinning
            // counts: the waker's and ours) would be ours, and one spinning count would never be
            // given back, so that no wake-up would ever happen again (found by the soak).
            if (m.nextP != null || !m.parked || scheduling.shutdown.isTerminated()) {
                return null;
            }
            Processor p = idle.getP();
            if (p == null) {
                stopSleep(m); // every P is busy: their holders run the timers
                return null;
            }
            idle.takeCarrier(m);
            stopSleep(m); // it parks again soon, and offers then; sysmon nets the rest
            idle.becomeSpinner(m);
            return p;
        } finally {
            scheduling.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- moving

    /**
     * {@code ProcResize}, after the scheduler lock, resizes serialised: moves retired {@code p}'s
     * timers to the active Ps {@code [0, procs)}. False if a failure left some behind, in
     * {@code p}'s heap (reported here), which every carrier still runs and which a later call
     * moves.
     */
    boolean move(Processor p, int procs) {
        Scheduling s = scheduling;
        TimerHeap heap = p.timers;
        heap.setClosed(true);
        Timer timer = null;
        try {
            for (int i = 0; (timer = heap.takeForMove()) != null; i++) {
                if (s.timerMoveFaultForTests != null) {
                    s.timerMoveFaultForTests.run();
                }
                TimerHeap to = s.allp[(p.id + i) % procs].timers;
                if (!to.addMoved(timer)) { // cannot happen while resizes are serialised; P0 is never closed
                    to = s.allp[0].timers;
                    to.addMoved(timer);
                }
                Timer moved = timer;
                timer = null; // in its new heap
                if (to.isEarliest(moved)) {
                    added(moved.when, false); // the sleeper may sleep past it
                }
            }
        } catch (Throwable failure) {
            if (timer != null) {
                heap.putBack(timer); // allocates nothing
            }
            s.failures.report(SchedulerFailure.Site.RESIZE, failure,
                    "the timers of retired " + p + " not moved stay in its heap, which every carrier still runs;"
                            + " sysmon moves them again");
            return false;
        }
        return true;
    }
}
