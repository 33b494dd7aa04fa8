package io.loomgmp.dispatcher;

import io.loomgmp.jfr.CarrierParkEvent;
import io.loomgmp.jfr.CarrierSpinEvent;
import io.loomgmp.jfr.PreemptEvent;
import io.loomgmp.jfr.RunEvent;
import io.loomgmp.jfr.StealEvent;
import io.loomgmp.jfr.WakeEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The scheduler's data path, top to bottom, and its shared state (Go's {@code schedt}).
 *
 * <h2>Implementation overview</h2>
 * <pre>
 * submit ──► runnext / local ring (submitter is on a carrier holding P)  ──┐
 *        ├─► global ready lane (anyone else, Placement.GLOBAL, overflow)  ─┤ then wakeP()
 *        └─► global yielded lane (preempted at a poll; a yield with no     │
 *            local work behind it)  ─────────────────────────────────────┘
 * schedule(task, delay) ──► the current P's timer heap (Go's p.timers)
 *
 * carrier: findRunnable ─► run ─► findRunnable ─► ... ─► (nothing found) give up P, park
 * findRunnable: due timers of this P (their tasks land in runnext)
 *               ─► runnext (inherits the time slice)
 *               ─► a ready task, when none was taken for GLOBAL_CHECK_NANOS (or the fairness tick)
 *               ─► local ring ─► ready batch ─► one yielded task ─► due timers of other Ps
 *               ─► steal (only while spinners ≤ busy Ps / 2) ─► give up P ─► re-check ─► park,
 *                  until the earliest timer if no other carrier sleeps for it
 * </pre>
 * A carrier (M) runs tasks only while it holds a P. The scheduler lock (Go's {@code sched.lock})
 * guards the idle P and idle carrier lists, {@code closed}, {@code detached} and P hand-overs;
 * the global queue is lock-free ({@link GlobalQueue}), and the fast path (submit from a carrier,
 * runnext/ring pop) takes no lock at all. The argument that no wake-up is lost is in
 * {@link Idle}; its carrier-side half is in {@link #findRunnable} and {@link #stopCarrier}.
 *
 * <h2>Why work from outside cannot starve</h2>
 * A CPU-bound task holds its P for a time slice at most (sysmon, {@link Sysmon}); preempted, it
 * goes to the global <em>yielded</em> lane, behind every other runnable task, as in Go. Work
 * that arrives from outside (a platform thread, an I/O poller) goes to the <em>ready</em> lane,
 * which each P serves before its local ring once {@link #GLOBAL_CHECK_NANOS} have passed since it
 * last took from it, and timers run at the top of every schedule. So with any number of
 * CPU-bound threads per P, a timer's thread runs within one time slice of its expiry, and outside
 * work within one time slice plus its place among the other ready tasks: bounded in time, not
 * only in schedules as Go's fairness tick is.
 *
 * <h2>Carrier compensation</h2>
 * While a carrier runs a task, sysmon may take its P ({@link #handOff}) if the task blocks the
 * carrier, and give it to another carrier. Who holds a P, and in which phase, is the P's
 * {@link Lease}: a carrier touches its P's queues as owner from inside a task only after a CAS
 * that sysmon's retake cannot pass ({@link Processor#beginOwnerOp}), so a P never has two
 * owners. The carrier whose P was taken finishes its task, then takes a P back ({@link #regainP}).
 *
 * <h2>Shutdown</h2>
 * {@code close} sets {@code closed} under the lock, after which submissions from non-carrier
 * threads are rejected; submissions from tasks running on our carriers are still accepted (they
 * are the continuation of accepted work). The scheduler is quiescent when every P is idle, the
 * global queue is empty and no carrier is still in a task whose P was handed off, all read under
 * the lock: work can only be in a queue, held by a carrier that holds a P, or in such a task, and
 * an idle P's queue is empty. Then {@code terminated} is set and every
 * carrier exits.
 */
final class Scheduling {
    /** Go's value; prime, so the fairness tick does not fall in lock-step with periodic workloads. */
    static final int FAIRNESS_TICK = 61;
    /**
     * Longest a P's local work may keep the global ready lane waiting: once this long has passed
     * since the P last took a ready task, it takes one before its local ring. Tokio aims its
     * self-tuning global-queue interval at this (200 µs); a fixed bound in time does the same
     * job without an average to tune, and costs one {@code System.nanoTime()} per schedule only
     * while ready work waits.
     */
    static final long GLOBAL_CHECK_NANOS = 200_000;
    /** Largest delay a timer accepts; longer ones are clamped (a timer that far out never fires in practice). */
    static final long MAX_TIMER_DELAY_NANOS = Long.MAX_VALUE >> 2;
    /** Largest batch moved from the global queue to a local ring: half the ring, as in Go. */
    static final int GLOBAL_BATCH_MAX = RunQueue.CAPACITY / 2;
    /** Steal passes over the other Ps before giving up (Go's stealTries). */
    static final int STEAL_PASSES = 4;
    /**
     * How long a thief waits before taking a running victim's runnext: the victim is most likely
     * about to run it (a hand-off in progress), and a steal would cost it its warm cache. Go
     * sleeps 3 µs; we spin, as a parkNanos this short oversleeps by tens of microseconds.
     */
    static final long RUNNEXT_GRACE_NANOS = 3_000;

    final String name;
    final int procs;
    final int maxCarriers;
    final Duration timeSlice;
    final Duration keepAlive;
    final Processor[] allp;
    final GlobalQueue global = new GlobalQueue();
    final ReentrantLock lock = new ReentrantLock();
    final Idle idle = new Idle(lock, this);
    final Sysmon sysmon;
    private final Condition quiescent = lock.newCondition();
    private final Thread.UncaughtExceptionHandler exceptionHandler;
    private final AtomicInteger carrierSeq = new AtomicInteger();
    private final Set<Carrier> liveCarriers = ConcurrentHashMap.newKeySet();
    private final int[] stealStrides;

    volatile CarrierLocator carrierLocator;
    /** The thread a task belongs to, for JFR events; see {@link GmpScheduler#taskThread}. */
    volatile Function<Runnable, Thread> taskThread = task -> null;
    /** Set under the lock; read under it on the rejecting path. */
    private volatile boolean closed;
    /**
     * Carriers still running a task whose P sysmon handed to another carrier. Changed under the
     * lock; volatile for snapshots.
     */
    private volatile int detached;
    /** Set under the lock once quiescent after close; carriers then exit instead of parking. */
    private volatile boolean terminated;

    Scheduling(String name, int procs, int maxCarriers, Duration timeSlice, Duration keepAlive,
               Thread.UncaughtExceptionHandler exceptionHandler, CarrierLocator carrierLocator) {
        this.name = name;
        this.procs = procs;
        this.maxCarriers = maxCarriers;
        this.timeSlice = timeSlice;
        this.keepAlive = keepAlive;
        this.exceptionHandler = exceptionHandler;
        this.carrierLocator = carrierLocator;
        this.allp = new Processor[procs];
        this.stealStrides = coprimesOf(procs);
        this.sysmon = new Sysmon(this);
        lock.lock();
        try {
            for (int i = procs - 1; i >= 0; i--) { // pushed in reverse so P0 is handed out first
                allp[i] = new Processor(i);
                idle.putP(allp[i]);
            }
        } finally {
            lock.unlock();
        }
        FlightRecording.register(this);
        sysmon.start();
    }

    // ---------------------------------------------------------------- submit

    /**
     * Any thread. Queues {@code task}: on the current P when the caller runs on one of our
     * carriers holding a P (runnext or ring tail, per {@code placement}), else on the global queue.
     */
    void submit(Runnable task, Placement placement) {
        Carrier m = currentCarrier();
        Processor p = m == null ? null : m.p;
        boolean yielded = false;
        if (placement == Placement.YIELD) {
            placement = Placement.LOCAL;
            if (m != null && m.yieldingAtPoll && m.running == task) {
                m.yieldingAtPoll = false;
                yielded = true; // preempted: behind every runnable task, on any P (Go's gopreempt_m)
            } else if (p != null && p.runQueue.isEmpty() && !global.isEmpty()) {
                // Nothing local to give way to, but others wait: their turn first. The ready lane,
                // not the yielded one: a voluntary yield gives way to runnable work, not to every
                // preempted CPU hog's next time slice (the JDK's I/O sub-pollers yield after each
                // poll, with the readers they must wake still waiting on them). Racy reads, a
                // heuristic: a wrong guess only changes which queue the task waits in.
                placement = Placement.GLOBAL;
            }
        }
        if (FlightRecording.on) {
            recordWake(m, p, task, yielded ? Placement.GLOBAL : placement);
        }
        boolean wake = true;
        boolean inLoop = p != null && Thread.currentThread() == m && p.holder == m.inLoop;
        // Act as the P's owner only while holding it: in the scheduling loop (timers run there),
        // or in a task after beginOwnerOp (sysmon may have retaken the P).
        if (p == null || yielded || placement == Placement.GLOBAL || !(inLoop || p.beginOwnerOp(m))) {
            submitGlobal(task, m != null, yielded);
        } else {
            try {
                if (placement == Placement.RUNNEXT) {
                    task = p.runQueue.pushNext(task); // the displaced occupant, if any, goes to the tail
                    // A hand-off into an empty runnext wakes nobody (as in Tokio): the submitter
                    // is most likely about to block, and then its own carrier runs the task at
                    // once; a woken carrier would spin and, after the grace, steal it to another
                    // CPU. If the submitter keeps the P instead, sysmon wakes a carrier.
                    wake = task != null;
                }
                if (task != null) {
                    Runnable[] overflow = p.runQueue.pushOrOverflow(task);
                    if (overflow != null) {
                        p.count(Counter.OVERFLOWS);
                        global.putReadyBatch(overflow); // lock-free: no lock is held across the owner op
                    }
                }
            } finally {
                if (!inLoop) {
                    p.endOwnerOp(m);
                }
            }
        }
        if (!wake) {
            return;
        }
        if (idle.idleProcs() == 0) {
            sysmon.nudge(); // every P busy: one may be held by a blocked carrier
        }
        idle.wakeP(); // after queueing: see Idle for why this order loses no wake-up
    }

    /** The {@code loomgmp.Wake} event; a task re-queueing itself (a yield) ends its run instead. */
    private void recordWake(Carrier m, Processor p, Runnable task, Placement placement) {
        if (m != null && m.running == task) {
            if (m.runEnd == null) {
                m.runEnd = RunEvent.END_YIELDED; // same OS thread as m: owner-only field
            }
            return;
        }
        WakeEvent event = new WakeEvent();
        if (event.isEnabled()) {
            event.processor = p == null ? -1 : p.id;
            event.wakerThread = Thread.currentThread().threadId();
            Thread thread = taskThread.apply(task);
            event.virtualThread = thread == null ? 0 : thread.threadId();
            event.placement = p == null ? "global" : placement.name().toLowerCase(Locale.ROOT);
            if (m != null && Thread.currentThread() == m) {
                FlightRecording.beforeCarrierEvent(m);
            }
            event.commit();
        }
    }

    /**
     * Any thread. Puts {@code task} on the global queue without a lock. Outside work is rejected
     * once closed; a put that raced with {@code close} is taken back and rejected, unless a
     * carrier already took it (then it runs): so every task either runs or is rejected, never
     * left behind in a terminated scheduler.
     */
    private void submitGlobal(Runnable task, boolean fromOurCarrier, boolean yielded) {
        if (closed && !fromOurCarrier) {
            throw rejected();
        }
        if (yielded) {
            global.putYielded(task);
        } else {
            global.putReady(task);
        }
        if (closed && !fromOurCarrier && global.remove(task)) {
            lock.lock();
            try {
                signalIfQuiescent(); // close() may have seen the task and now waits for it
            } finally {
                lock.unlock();
            }
            throw rejected();
        }
    }

    private RejectedExecutionException rejected() {
        return new RejectedExecutionException("scheduler " + name + " is closed");
    }

    // ---------------------------------------------------------------- timers

    /**
     * Any thread. Runs {@code task} on a carrier once {@code delayNanos} have passed: a timer in
     * the heap of the caller's P (any P for a thread that is not one of our carriers). The
     * scheduling loop of whichever carrier holds that P runs it when due, or another P steals it.
     *
     * @throws RejectedExecutionException once the scheduler has terminated
     */
    Future<?> schedule(Runnable task, long delayNanos) {
        if (terminated) {
            throw rejected();
        }
        Carrier m = currentCarrier();
        Processor p = m != null && m.p != null ? m.p : allp[ThreadLocalRandom.current().nextInt(procs)];
        long when = System.nanoTime() + Math.clamp(delayNanos, 0, MAX_TIMER_DELAY_NANOS);
        Timer timer = p.timers.add(task, when);
        if (p.timers.isEarliest(timer)) {
            // A virtual thread's timeout is added by its carrier as it unmounts: if that P has
            // nothing else to do, the carrier is about to park, and then sleeps for this timer.
            boolean adderWillPark = m != null && Thread.currentThread() == m && m.p == p
                    && p.runQueue.isEmpty() && global.isEmpty();
            idle.timerAdded(when, adderWillPark);
        }
        return timer;
    }

    /**
     * Carrier {@code m}, in its scheduling loop: runs the timers of {@code heap} (its own P's or
     * another's) that are due at {@code now}. Their tasks run here, on the carrier; a virtual
     * thread's timeout unparks it into this P's runnext. Returns whether any ran.
     */
    private boolean runDueTimers(Carrier m, TimerHeap heap, long now) {
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
                timer.run(); // FutureTask: a no-op if cancelled meanwhile; keeps what the task throws
                if (timer.state() == Future.State.FAILED) {
                    report(timer.exceptionNow());
                }
                ran = true;
            }
        } while (n == room);
        return ran;
    }

    /** Any thread: delay from {@code now} to the earliest timer of any P (0 if due), or -1 if none. */
    long timerDelay(long now) {
        long delay = -1;
        for (Processor p : allp) {
            TimerHeap heap = p.timers;
            if (!heap.isEmpty()) {
                long d = Math.max(0, heap.nextWhen() - now);
                if (delay < 0 || d < delay) {
                    delay = d;
                }
            }
        }
        return delay;
    }

    /** The carrier the caller runs on, if it is ours (as the carrier locator sees it). */
    private Carrier currentCarrier() {
        Thread carrier = carrierLocator.currentCarrier();
        if (carrier instanceof Carrier m && m.scheduling == this) {
            return m;
        }
        return null;
    }

    /** Whether the calling thread is one of our carriers and is running {@code task} right now. */
    boolean isCurrentTask(Runnable task) {
        return Thread.currentThread() instanceof Carrier m && m.scheduling == this && m.running == task;
    }

    boolean isOurCarrier(Thread thread) {
        return thread instanceof Carrier m && m.scheduling == this;
    }

    // ---------------------------------------------------------------- carriers

    /**
     * Starts a carrier that will take {@code p}, and returns it. The caller has reserved it in
     * the carrier count.
     */
    Carrier startCarrier(Processor p, boolean spinning) {
        Carrier m = new Carrier(this, name + "-M" + carrierSeq.getAndIncrement());
        m.spinning = spinning; // published by Thread.start
        m.nextP = p;
        liveCarriers.add(m);
        // A carrier that starts another one waits in the kernel until it runs, for 100 µs or more
        // on a loaded machine: it must not look blocked in its task to sysmon meanwhile.
        Carrier starter = Thread.currentThread() instanceof Carrier c && c.scheduling == this ? c : null;
        if (starter != null) {
            starter.startingCarrier = true;
        }
        try {
            m.start();
        } catch (Throwable e) { // OutOfMemoryError: unable to create native thread, and the like
            liveCarriers.remove(m);
            lock.lock();
            try {
                idle.carrierExited();
                idle.putP(p);
            } finally {
                lock.unlock();
            }
            if (spinning) {
                idle.spinning.decrementAndGet();
            }
            throw e;
        } finally {
            if (starter != null) {
                starter.startingCarrier = false;
            }
        }
        return m;
    }

    /** The carrier's whole life: take the handed P, then find and run tasks until it ends. */
    void runCarrier(Carrier m) {
        try {
            Processor first = takeNextP(m);
            if (first == null) {
                return;
            }
            acquire(m, first);
            if (m.spinning) {
                spinStarted(m);
            }
            while (true) {
                Runnable task = findRunnable(m);
                if (task == null) {
                    return; // terminated, or retired after the keep-alive
                }
                if (m.spinning) {
                    stopSpinning(m);
                }
                if (!run(m, task) && !regainP(m)) {
                    return;
                }
            }
        } finally {
            liveCarriers.remove(m);
            if (!m.retired) {
                lock.lock();
                try {
                    idle.carrierExited();
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /**
     * Runs {@code task} with the P's lease in the in-task phase, during which sysmon may take the
     * P if the task blocks. Returns whether {@code m} still holds its P afterwards.
     */
    private boolean run(Carrier m, Runnable task) {
        Processor p = m.p;
        p.count(Counter.TASKS_RUN);
        m.running = task;
        m.runEnd = null;
        m.yieldingAtPoll = false;
        RunEvent event = null;
        if (FlightRecording.on) {
            m.eventWriterShared = true; // the task may commit events through the carrier's writer
            event = new RunEvent();
            event.begin();
        }
        p.enterTask(m);
        try {
            task.run();
        } catch (Throwable failure) {
            report(failure);
        } finally {
            m.running = null;
        }
        if (event != null) {
            recordRun(event, m, p, task);
        }
        return p.leaveTask(m);
    }

    private void recordRun(RunEvent event, Carrier m, Processor p, Runnable task) {
        event.end();
        if (event.shouldCommit()) {
            event.processor = p.id;
            event.carrierThread = m.threadId();
            Thread thread = taskThread.apply(task);
            event.virtualThread = thread == null ? 0 : thread.threadId();
            event.source = m.runSource;
            event.end = m.runEnd != null ? m.runEnd : thread == null ? RunEvent.END_UNKNOWN
                    // A continuation run ends by a yield (known: runEnd), termination or a park.
                    : thread.getState() == Thread.State.TERMINATED ? RunEvent.END_FINISHED : RunEvent.END_PARKED;
            FlightRecording.beforeCarrierEvent(m);
            event.commit();
        }
    }

    /**
     * Sysmon handed {@code m}'s P to another carrier while {@code m}'s task was blocked (Go's
     * exitsyscall). Takes that P back if it is idle, else any idle P; else parks as an idle
     * carrier until handed one. Returns false if {@code m} should end instead.
     */
    private boolean regainP(Carrier m) {
        Processor old = m.p;
        lock.lock();
        try {
            detached = detached - 1;
            Processor p = idle.takeP(old) ? old : idle.getP();
            if (p != null) {
                acquire(m, p);
                return true;
            }
            m.p = null;
            signalIfQuiescent(); // close() may be waiting for this task to return
        } finally {
            lock.unlock();
        }
        return stopCarrier(m);
    }

    /**
     * Sysmon: takes {@code p} from carrier {@code m}, blocked in a task, and hands it to an idle
     * carrier or a new one, which it returns. Returns null, changing nothing, if no carrier can be
     * had (all {@code maxCarriers} exist and none is idle) or {@code m} is no longer in that task.
     */
    Carrier handOff(Processor p, Carrier m) {
        Idle.Reservation carrier;
        lock.lock();
        try {
            if (terminated) {
                return null;
            }
            carrier = idle.reserveCarrier();
            if (carrier == null) {
                return null;
            }
            if (!p.retake(m)) {
                idle.unreserveCarrier(carrier);
                return null;
            }
            p.holder = null; // in transit to the reserved carrier
            detached = detached + 1; // until m's task returns (regainP)
            sysmon.handoffs.increment(); // before the P can run anything: snapshots see it first
        } finally {
            lock.unlock();
        }
        return idle.handTo(carrier, p, false);
    }

    private void report(Throwable failure) {
        try {
            exceptionHandler.uncaughtException(Thread.currentThread(), failure);
        } catch (Throwable handlerFailure) {
            // The handler itself failed: a carrier must survive anything a task does.
            try {
                handlerFailure.addSuppressed(failure);
                handlerFailure.printStackTrace();
            } catch (Throwable ignored) {
                // nothing left to report with
            }
        }
    }

    // ---------------------------------------------------------------- finding work

    /**
     * Called by carrier {@code m}, which holds a P. Returns the next task to run, with {@code m}
     * holding a P (possibly another one); or {@code null} once the scheduler has terminated.
     * Every task not taken from runnext starts a new time slice ({@link Processor#tick()}).
     */
    private Runnable findRunnable(Carrier m) {
        Processor p = m.p;
        while (true) {
            // 0. This P's due timers (Go's checkTimers): a sleeper's wake-up never queues behind
            // CPU-bound work; its task lands in runnext and runs next.
            if (!p.timers.isEmpty()) {
                long now = System.nanoTime();
                if (p.timers.hasDue(now)) {
                    runDueTimers(m, p.timers, now);
                }
            }
            // 1. runnext: a hand-off from the task that just ran, or a timer's thread; shares the
            // time slice. Skipped once when sysmon asked for preemption: a hand-off chain (a
            // ping-pong pair) would otherwise keep the P to itself, since runnext never starts a
            // new slice.
            boolean preempted = p.preemptRequested && Preemption.take(p);
            if (preempted && FlightRecording.on) {
                recordPreempt(p, m, PreemptEvent.ACTION_HONOURED, 0);
            }
            Runnable task;
            if (!preempted) {
                task = p.runQueue.pollNext();
                if (task != null) {
                    p.count(Counter.RUNNEXT_HITS);
                    m.runSource = RunEvent.SOURCE_RUNNEXT;
                    return task;
                }
            }
            // 2. Global work that has waited long enough, ahead of the local ring: on the fairness
            // tick a yielded task or else a ready one, and a ready task when none was taken for
            // GLOBAL_CHECK_NANOS. (With the ring empty, steps 4 and 5 take them anyway.)
            task = p.runQueue.isEmpty() ? null : pollGlobalWhenDue(p);
            if (task != null) {
                p.count(Counter.FAIRNESS_TICK_GRABS);
                p.tick();
                m.runSource = RunEvent.SOURCE_FAIRNESS;
                return task;
            }
            // 3. The local ring.
            task = p.runQueue.poll();
            if (task != null) {
                p.count(Counter.LOCAL_POPS);
                p.tick();
                m.runSource = RunEvent.SOURCE_LOCAL;
                return task;
            }
            // 4. A batch of ready tasks from the global queue.
            task = grabReadyBatch(p);
            if (task != null) {
                p.tick();
                m.runSource = RunEvent.SOURCE_GLOBAL;
                return task;
            }
            // The skipped runnext, now with a new time slice, before yielded work.
            if (preempted) {
                task = p.runQueue.pollNext();
                if (task != null) {
                    p.count(Counter.RUNNEXT_HITS);
                    p.tick();
                    m.runSource = RunEvent.SOURCE_RUNNEXT;
                    return task;
                }
            }
            // 5. One yielded task: each may run a whole time slice, so no batch.
            task = global.pollYielded();
            if (task != null) {
                p.count(Counter.GLOBAL_GRABS);
                p.tick();
                m.runSource = RunEvent.SOURCE_GLOBAL;
                return task;
            }
            // 6. Due timers of other Ps, idle or busy (Go's stealWork runs them): their carrier
            // may be parked, blocked in a task, or deep in a time slice.
            task = runOthersDueTimers(m, p);
            if (task != null) {
                return task;
            }
            // 7. Steal, but keep the searchers to half the busy Ps: more would burn CPU for
            // nothing while the busy ones generate work.
            if (m.spinning || 2 * idle.spinning.get() < procs - idle.idleProcs()) {
                if (!m.spinning) {
                    startSpinning(m, p);
                }
                task = stealWork(m, p);
                if (task != null) {
                    p.tick();
                    m.runSource = RunEvent.SOURCE_STOLEN;
                    return task;
                }
            }
            // 8. Nothing: give up the P.
            lock.lock();
            try {
                release(m);
            } finally {
                lock.unlock();
            }
            // 9. The spinning-to-idle transition. Publish "not spinning" FIRST (a volatile RMW),
            // then re-check every queue: a submitter that saw us still spinning did not wake
            // anyone, so its task must be visible to this re-check. Reversing the two steps
            // loses wake-ups (SchedulingStressTest).
            if (m.spinning) {
                m.spinning = false;
                idle.spinning.decrementAndGet();
                if (m.spinEvent != null) {
                    recordSpin(m, false);
                }
                Processor found = recheckAfterSpinning(m);
                if (found != null) {
                    p = found;
                    continue;
                }
            }
            // 10. Park until a waker hands us a P (stopCarrier re-checks the global queue and
            // the timers first, and may sleep until the earliest timer).
            if (!stopCarrier(m)) {
                return null;
            }
            p = m.p;
        }
    }

    /**
     * Owner of {@code p}, whose ring is not empty. Step 2 of {@link #findRunnable}: on the
     * fairness tick a yielded task, or else a ready one (ready work has the time bound; the tick
     * keeps preempted tasks from starving while outside work keeps arriving); otherwise a ready
     * task if {@code p} last took one at least {@link #GLOBAL_CHECK_NANOS} ago and has run a task
     * from its ring since; {@code null} otherwise. One volatile read when the ready lane is empty
     * and it is not the tick.
     *
     * <p>"Ran a local task since" is Tokio's lower bound on its global-queue interval (2 ticks):
     * with tasks longer than the bound, every schedule is overdue, and ready work must not take
     * every turn, or the ring (itself often filled from the ready lane) would wait until the
     * ready lane ran dry. So with long tasks the two alternate; with short ones, local work runs
     * for {@code GLOBAL_CHECK_NANOS} between two ready tasks.
     */
    private Runnable pollGlobalWhenDue(Processor p) {
        long tick = p.schedtick();
        boolean fairnessTick = tick % FAIRNESS_TICK == 0;
        if (fairnessTick) {
            Runnable yielded = global.pollYielded();
            if (yielded != null) {
                return yielded;
            }
        }
        if (global.readySize() > 0 && (fairnessTick || tick - p.readyTakenTick >= 2)) {
            long now = System.nanoTime();
            if (fairnessTick || now - p.readyTakenAt() >= GLOBAL_CHECK_NANOS) {
                Runnable task = global.pollReady();
                if (task != null) {
                    p.readyTaken(now);
                    p.readyTakenTick = tick + 1; // the tick this task's run starts
                    return task;
                }
            }
        }
        return null;
    }

    /**
     * Owner of {@code p}. Step 6 of {@link #findRunnable}: runs the due timers of the other Ps,
     * then returns what they put on {@code p}, or {@code null}.
     */
    private Runnable runOthersDueTimers(Carrier m, Processor p) {
        if (procs == 1) {
            return null;
        }
        long now = 0;
        boolean ran = false;
        for (Processor other : allp) {
            if (other != p && !other.timers.isEmpty()) {
                if (now == 0) {
                    now = System.nanoTime();
                }
                if (other.timers.hasDue(now)) {
                    ran |= runDueTimers(m, other.timers, now);
                }
            }
        }
        if (!ran) {
            return null;
        }
        Runnable task = p.runQueue.pollNext();
        if (task != null) {
            p.count(Counter.RUNNEXT_HITS);
            m.runSource = RunEvent.SOURCE_RUNNEXT;
            return task;
        }
        task = p.runQueue.poll();
        if (task != null) {
            p.count(Counter.LOCAL_POPS);
            p.tick();
            m.runSource = RunEvent.SOURCE_LOCAL;
        }
        return task;
    }

    /** Any thread: whether a timer of any P is due at {@code now}. */
    private boolean anyTimerDue(long now) {
        for (Processor p : allp) {
            if (p.timers.hasDue(now)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The re-check of step 7: if any queue has work and a P is idle, takes that P and becomes a
     * spinner again (so that finding work wakes the next one). Returns the P, or {@code null}.
     */
    private Processor recheckAfterSpinning(Carrier m) {
        boolean work = !global.isEmpty() || anyTimerDue(System.nanoTime());
        for (int i = 0; !work && i < procs; i++) {
            work = !allp[i].runQueue.isEmpty();
        }
        if (!work) {
            return null;
        }
        Processor p;
        lock.lock();
        try {
            p = idle.getP();
            if (p == null) {
                return null; // every P is busy: their holders will run it
            }
            acquire(m, p);
        } finally {
            lock.unlock();
        }
        startSpinning(m, p);
        return p;
    }

    /**
     * Owner of {@code p}, whose ring is empty. Takes {@code min(ready/procs + 1, 128)} ready tasks
     * (Go's globrunqget): returns the first, queues the rest on {@code p}; {@code null} if none.
     */
    private Runnable grabReadyBatch(Processor p) {
        int ready = global.readySize();
        if (ready == 0) {
            return null;
        }
        Runnable first = global.pollReady();
        if (first == null) {
            return null;
        }
        int n = 1;
        for (int max = Math.min(ready / procs + 1, GLOBAL_BATCH_MAX); n < max; n++) {
            Runnable task = global.pollReady();
            if (task == null) {
                break;
            }
            // Cannot overflow: the ring was empty and n <= half of it.
            Runnable[] overflow = p.runQueue.pushOrOverflow(task);
            assert overflow == null;
        }
        p.readyTaken(System.nanoTime());
        p.count(Counter.GLOBAL_GRABS, n);
        return first;
    }

    /**
     * Up to {@link #STEAL_PASSES} passes over the other busy Ps in a random order; takes half of
     * the first non-empty ring found. Victims' runnext only on the last pass.
     */
    private Runnable stealWork(Carrier m, Processor p) {
        if (procs == 1) {
            return null;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int pass = 0; pass < STEAL_PASSES; pass++) {
            boolean lastPass = pass == STEAL_PASSES - 1;
            int start = random.nextInt(procs);
            int stride = stealStrides[random.nextInt(stealStrides.length)];
            for (int k = 0, i = start; k < procs; k++, i = (i + stride) % procs) {
                Processor victim = allp[i];
                if (victim == p || victim.holder == null) {
                    continue; // idle Ps have empty queues
                }
                int before = p.runQueue.size();
                Runnable task = p.runQueue.stealHalfFrom(victim.runQueue, lastPass, RUNNEXT_GRACE_NANOS);
                if (task != null) {
                    int stolen = p.runQueue.size() - before + 1;
                    p.count(Counter.STEALS);
                    p.count(Counter.STOLEN_TASKS, stolen);
                    if (FlightRecording.on) {
                        recordSteal(m, p, victim, stolen);
                    }
                    return task;
                }
            }
        }
        return null;
    }

    private static void recordSteal(Carrier m, Processor thief, Processor victim, int tasks) {
        StealEvent event = new StealEvent();
        if (event.isEnabled()) {
            event.thief = thief.id;
            event.victim = victim.id;
            event.tasks = tasks;
            FlightRecording.beforeCarrierEvent(m);
            event.commit();
        }
    }

    /**
     * The {@code loomgmp.Preempt} event: sysmon requested it ({@code sliceNanos}: how long the
     * time slice had run), or carrier {@code m} honours it (skips runnext, or yields at a poll).
     */
    static void recordPreempt(Processor p, Carrier m, String action, long sliceNanos) {
        PreemptEvent event = new PreemptEvent();
        if (event.isEnabled()) {
            event.processor = p.id;
            event.action = action;
            event.carrierThread = m.threadId();
            event.sliceNanos = sliceNanos;
            if (Thread.currentThread() == m) { // not sysmon, nor a virtual thread at a poll
                FlightRecording.beforeCarrierEvent(m);
            }
            event.commit();
        }
    }

    private void startSpinning(Carrier m, Processor p) {
        m.spinning = true;
        idle.spinning.incrementAndGet();
        p.count(Counter.SPINS);
        spinStarted(m);
    }

    /** Opens the {@code loomgmp.CarrierSpin} event of a carrier that starts (or was woken to) spin. */
    private static void spinStarted(Carrier m) {
        if (FlightRecording.on && m.spinEvent == null) {
            CarrierSpinEvent event = new CarrierSpinEvent();
            if (event.isEnabled()) {
                event.begin();
                m.spinEvent = event;
            }
        }
    }

    private static void recordSpin(Carrier m, boolean foundWork) {
        CarrierSpinEvent event = m.spinEvent;
        m.spinEvent = null;
        event.end();
        if (event.shouldCommit()) {
            event.processor = m.p == null ? -1 : m.p.id;
            event.carrierThread = m.threadId();
            event.foundWork = foundWork;
            FlightRecording.beforeCarrierEvent(m);
            event.commit();
        }
    }

    /** A spinner found work: it stops spinning, and the last one wakes another searcher. */
    private void stopSpinning(Carrier m) {
        if (m.spinEvent != null) {
            recordSpin(m, true);
        }
        m.spinning = false;
        if (idle.spinning.decrementAndGet() == 0) {
            idle.wakeP();
        }
    }

    // ---------------------------------------------------------------- P hand-over and parking

    /** Must hold the lock, or own {@code p} exclusively (just handed over). */
    private static void acquire(Carrier m, Processor p) {
        p.holder = m.inLoop;
        m.p = p;
    }

    /** Must hold the lock. {@code m} gives up its P, whose queue is empty. */
    private void release(Carrier m) {
        Processor p = m.p;
        m.p = null;
        idle.putP(p);
    }

    /**
     * Parks {@code m} on the idle list until a waker hands it a P (then holds it and returns true)
     * or the scheduler terminates (returns false).
     */
    private boolean stopCarrier(Carrier m) {
        lock.lock();
        try {
            if (terminated) {
                return false;
            }
            // Our P was published idle (a volatile write) before this read of the global queue:
            // a submitter puts its task and then reads the idle count, so either it sees our idle
            // P and wakes someone, or we see its task here (Idle). The same for a timer that came
            // due, and for a waker that found no carrier to hand a P to (maxCarriers) and gave
            // the P back, leaving its work queued.
            if (!global.isEmpty() || anyTimerDue(System.nanoTime())) {
                Processor p = idle.getP();
                if (p != null) {
                    acquire(m, p);
                    return true;
                }
            }
            idle.putCarrier(m);
            idle.offerTimerSleep(m); // if no carrier sleeps for the timers yet, this one will
        } finally {
            lock.unlock();
        }
        idle.parks.increment();
        CarrierParkEvent park = null;
        if (FlightRecording.on) {
            park = new CarrierParkEvent();
            park.begin();
        }
        Processor p = takeNextP(m);
        if (park != null) {
            park.end();
            if (park.shouldCommit()) {
                park.carrierThread = m.threadId();
                FlightRecording.beforeCarrierEvent(m);
                park.commit();
            }
        }
        if (p == null) {
            return false;
        }
        acquire(m, p);
        if (m.spinning) {
            spinStarted(m); // woken by wakeP to search
        }
        return true;
    }

    /**
     * Waits for the P a waker hands over in {@code m.nextP}. Returns null once the scheduler has
     * terminated, or when {@code m} retired: a carrier beyond {@code procs} that waited a whole
     * keep-alive leaves the idle list and ends.
     */
    private Processor takeNextP(Carrier m) {
        long parkedAt = System.nanoTime();
        long keepAliveNanos = keepAlive.toNanos();
        Processor p;
        while ((p = m.nextP) == null) {
            if (terminated) {
                return null;
            }
            if (idle.isTimerSleeper(m)) {
                p = sleepUntilTimer(m);
                if (p != null) {
                    return p;
                }
                parkedAt = System.nanoTime();
                continue;
            }
            if (idle.carriers() <= procs) {
                LockSupport.park(this);
                parkedAt = System.nanoTime(); // the keep-alive counts from when it became spare
                continue;
            }
            long left = keepAliveNanos - (System.nanoTime() - parkedAt);
            if (left > 0) {
                LockSupport.parkNanos(this, left);
                continue;
            }
            lock.lock();
            try {
                // Off the idle list under the lock, so no waker can hand us a P afterwards.
                if (m.nextP == null && idle.retire(m)) {
                    m.retired = true;
                    return null;
                }
            } finally {
                lock.unlock();
            }
        }
        idle.stopTimerSleep(m); // holding a P now: the next carrier to park sleeps for the timers
        m.nextP = null;
        return p;
    }

    /**
     * Carrier {@code m}, parked on the idle list as the timer sleeper (Go's M blocked in netpoll
     * until {@code pollUntil}): parks until the earliest timer of any P, then takes an idle P to
     * run the due timers, as a spinner. Returns that P, or {@code null} to be called again (woken
     * early by an earlier timer or a waker; or the role was given up: no timers are left, or
     * every P is busy and their holders run the timers at their next schedule).
     */
    private Processor sleepUntilTimer(Carrier m) {
        long now = System.nanoTime();
        long delay = timerDelay(now);
        if (delay < 0) {
            idle.stopTimerSleep(m);
            return null;
        }
        if (delay > 0) {
            // Publish the deadline, then look again: a timer added meanwhile either sees the new
            // deadline (and unparks us if it is earlier) or is seen by this second look.
            idle.timerSleepUntil(now + delay);
            long again = timerDelay(System.nanoTime());
            if (again >= 0 && again < delay - (System.nanoTime() - now)) {
                return null; // an earlier timer arrived: recompute
            }
            LockSupport.parkNanos(this, delay);
            return null;
        }
        lock.lock();
        try {
            if (m.nextP != null || terminated) {
                return null; // handed a P meanwhile, or ending: takeNextP sees it
            }
            Processor p = idle.getP();
            if (p == null) {
                idle.stopTimerSleep(m); // every P is busy: their holders run the timers
                return null;
            }
            idle.takeCarrier(m);
            idle.stopTimerSleep(m);
            m.spinning = true;
            idle.spinning.incrementAndGet();
            return p;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- shutdown

    /** Must hold the lock. Called whenever a P goes idle or a detached carrier's task returns. */
    void signalIfQuiescent() {
        if (closed && isQuiescent()) {
            quiescent.signalAll();
        }
    }

    /**
     * Must hold the lock. Every P idle, the global queue empty, and no carrier still running a
     * task whose P sysmon handed off: such a task can still submit work.
     */
    private boolean isQuiescent() {
        return idle.idleProcs() == procs && global.isEmpty() && detached == 0;
    }

    boolean isClosed() {
        return closed;
    }

    boolean isTerminated() {
        return terminated;
    }

    /**
     * Stops accepting outside work, waits until every queued task has run, and stops the
     * carriers. Called from one of our own carriers, it only stops accepting outside work (waiting
     * would wait for itself).
     */
    void close() {
        boolean interrupted = false;
        Carrier[] parked;
        lock.lock();
        try {
            closed = true;
            if (isOurCarrier(Thread.currentThread()) || isOurCarrier(carrierLocator.currentCarrier())) {
                return;
            }
            while (!isQuiescent()) {
                try {
                    quiescent.await();
                } catch (InterruptedException e) {
                    interrupted = true; // keep waiting, as ExecutorService.close does
                }
            }
            terminated = true;
            FlightRecording.unregister(this);
            parked = idle.idleCarrierList();
        } finally {
            lock.unlock();
        }
        for (Carrier m : parked) {
            LockSupport.unpark(m);
        }
        interrupted |= joinUninterruptibly(sysmon.stop());
        for (Carrier m : List.copyOf(liveCarriers)) {
            LockSupport.unpark(m);
            interrupted |= joinUninterruptibly(m);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for {@code thread} to end, through interrupts; returns whether one came. */
    private static boolean joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }

    // ---------------------------------------------------------------- snapshot

    SchedulerSnapshot snapshot() {
        List<SchedulerSnapshot.ProcessorSnapshot> ps = new ArrayList<>(procs);
        long[] totals = new long[Counter.values().length];
        long timersFired = 0;
        for (Processor p : allp) {
            for (Counter c : Counter.values()) {
                totals[c.ordinal()] += p.counted(c);
            }
            timersFired += p.timers.fired();
            ps.add(new SchedulerSnapshot.ProcessorSnapshot(
                    p.id, p.holder == null, p.runQueue.size(), p.runQueue.hasNext(), p.schedtick(),
                    p.counted(Counter.TASKS_RUN), p.timers.pending()));
        }
        int carriers = idle.carriers();
        int spinning = idle.spinning.get();
        int idleCarriers = idle.idleCarriers();
        int blocked = detached;
        return new SchedulerSnapshot(
                name, procs, idle.idleProcs(), carriers,
                Math.max(0, carriers - spinning - idleCarriers - blocked), spinning, idleCarriers, blocked,
                global.size(), List.copyOf(ps),
                totals[Counter.TASKS_RUN.ordinal()],
                totals[Counter.RUNNEXT_HITS.ordinal()],
                totals[Counter.LOCAL_POPS.ordinal()],
                totals[Counter.GLOBAL_GRABS.ordinal()],
                totals[Counter.FAIRNESS_TICK_GRABS.ordinal()],
                totals[Counter.STEALS.ordinal()],
                totals[Counter.STOLEN_TASKS.ordinal()],
                totals[Counter.OVERFLOWS.ordinal()],
                idle.parks.sum(),
                totals[Counter.SPINS.ordinal()],
                sysmon.preemptRequests.sum(),
                sysmon.handoffs.sum(),
                timersFired);
    }

    /** Strides coprime with n, so that {@code i = (i + stride) % n} visits every P once (Go's randomOrder). */
    private static int[] coprimesOf(int n) {
        List<Integer> strides = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            if (gcd(i, n) == 1) {
                strides.add(i);
            }
        }
        return strides.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int gcd(int a, int b) {
        while (b != 0) {
            int t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
