package io.loomgmp.dispatcher;

import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The scheduler's timers (Go's {@code time.go}): each P has a heap of them ({@link TimerHeap},
 * {@link Timer}); this class adds them, runs the due ones, and moves a retired P's. The carrier
 * that sleeps until the earliest (the timer sleeper) is {@link Parking}'s.
 * <ul>
 *   <li><b>Adding</b> ({@link #schedule}): into the heap of the caller's P (any P for a thread
 *       that is not one of our carriers). A timer that is now its heap's earliest may need someone
 *       awake for it ({@link #added}): the timer sleeper if it would wake later
 *       ({@link Parking#wakeSleeperFor}), a carrier if nobody sleeps for the timers, sysmon if
 *       every P is busy (the task in its way gives way). Why no timer is slept past: see
 *       {@link Parking}.</li>
 *   <li><b>Running</b> ({@link #runDue}): at the top of every schedule, a carrier runs its own P's
 *       due timers; one that finds nothing else to do runs the other Ps' ({@link #runOthersDue}),
 *       as Go's stealWork does. A timer's task runs on the carrier and, for a virtual thread's
 *       timeout, unparks it into this P's runnext; no more at once than the ring has room for.</li>
 *   <li><b>Moving</b> ({@link #move}): {@code setProcs} moves a retired P's timers to the active
 *       ones; a move that fails leaves them in the retired P's heap, which every carrier still
 *       runs, and sysmon moves them again.</li>
 * </ul>
 *
 * <h2>Failure</h2>
 * Adding throws {@link RejectedExecutionException} once the scheduler has terminated (or is closed,
 * for a thread not ours), or an {@code OutOfMemoryError} from the heap, with nothing added. What a
 * timer's task throws is the timer's ({@link Timer}, a {@code FutureTask}). The wake-ups allocate
 * nothing. A move's failure is reported and retried ({@link #move}).
 */
final class Timers {
    /** Largest delay a timer accepts; longer ones are clamped (a timer that far out never fires in practice). */
    static final long MAX_TIMER_DELAY_NANOS = Long.MAX_VALUE >> 2;

    private final Scheduling scheduling;
    /**
     * The timer mask (Go's {@code timerpMask}): a P's bit is set while its heap holds any timer,
     * kept by the heap under its lock ({@link TimerHeap}'s class comment gives the ordering). The
     * walks over every P's timers below ({@link #delay}, {@link #anyDue}, {@link #runOthersDue})
     * read the Ps whose bit is set, so they cost O(Ps with timers + Ps / 64), not O(Ps): a
     * searcher's step 6 and its spinning re-check, the parking carrier's and sysmon's looks.
     */
    final ProcMask withTimers;
    /** {@link TestSeams#timerMoveFault}: null in use. */
    private final Runnable timerMoveFaultForTests;

    Timers(Scheduling scheduling, Runnable timerMoveFault) {
        this.scheduling = scheduling;
        this.withTimers = new ProcMask(scheduling.allp.length);
        this.timerMoveFaultForTests = timerMoveFault;
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
        // Retired Ps too (see ProcResize's failure model): a heap's bit is kept whatever its P.
        Processor[] allp = scheduling.allp;
        int n = scheduling.allocated; // a P made after this read had no timer before it was published
        for (int i = withTimers.next(0, n); i >= 0; i = withTimers.next(i + 1, n)) {
            TimerHeap heap = allp[i].timers;
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
        Processor[] allp = scheduling.allp;
        int n = scheduling.allocated;
        for (int i = withTimers.next(0, n); i >= 0; i = withTimers.next(i + 1, n)) {
            if (allp[i].timers.hasDue(now)) {
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
        if (!scheduling.parking.wakeSleeperFor(when) && !adderWillPark) {
            scheduling.idle.wakeP(); // nobody sleeps for the timers: a carrier that will
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
        // The Ps with timers only (the timer mask): idle or busy, retired ones too.
        for (int i = withTimers.next(0, n); i >= 0; i = withTimers.next(i + 1, n)) {
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
                if (timerMoveFaultForTests != null) {
                    timerMoveFaultForTests.run();
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
