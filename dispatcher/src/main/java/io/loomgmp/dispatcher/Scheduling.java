package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The scheduler's shared state (Go's {@code schedt}) and its entry points: {@link #submit} and
 * {@link #schedule}. Each protocol has one owner, which this class wires together:
 *
 * <pre>
 * submit ──► runnext / local ring (submitter is on a carrier holding P)  ──┐
 *        ├─► global ready lane (anyone else, Placement.GLOBAL, overflow,   ─┤ then Idle.wakeP
 *        │   a yield while the global queue has work)                      │
 *        └─► global yielded lane (preempted at a poll)  ─────────────────┘
 * schedule(task, delay) ──► the current P's timer heap (Go's p.timers)
 *
 * RunLoop      a carrier's loop: findRunnable (timers, runnext, ring, global, steal) and run
 * Idle         idle Ps and carriers, spinning, and every decision to wake a carrier
 * Carriers     a carrier's life: start (ThreadFactory), park, retire, hand-off, regain, failure
 * Sysmon       preemption requests, hand-offs of blocked carriers' Ps, thief wake-ups
 * Shutdown     close and termination
 * Events       every JFR event the data path emits; Failures: every failure it reports
 * LatencySamples  which queued tasks carry a timestamp; LatencyRecorder: each P's latency histograms
 * Processor    a P: its RunQueue (runnext and ring), its TimerHeap, its Lease (who holds it)
 * GlobalQueue  the global queue's two lanes
 * </pre>
 *
 * A carrier (M) runs tasks only while it holds a P. The scheduler lock (Go's {@code sched.lock})
 * guards the idle P and idle carrier lists, {@code closed}, the count of detached carriers and P
 * hand-overs; the global queue is lock-free ({@link GlobalQueue}), and the fast path (submit
 * from a carrier, runnext/ring pop) takes no lock at all. The argument that no wake-up is lost is
 * in {@link Idle}.
 *
 * <p>Failure: {@link #submit} throws only {@code RejectedExecutionException}, or an
 * {@code OutOfMemoryError} from the global queue, and only before its task was queued; nothing it
 * calls after queueing throws ({@link Idle#wakeP} reports a carrier it could not start and
 * returns). Its latency sample ({@link LatencySamples}) never throws: a sample that cannot be made
 * leaves the task untimed.
 */
final class Scheduling {
    /** Largest delay a timer accepts; longer ones are clamped (a timer that far out never fires in practice). */
    static final long MAX_TIMER_DELAY_NANOS = Long.MAX_VALUE >> 2;

    final String name;
    /**
     * Active Ps: {@code allp[0, procs)}. Written under the lock by {@link ProcResize} only, after
     * {@link #allocated}; volatile for lock-free readers, which read it once and index below it.
     */
    volatile int procs;
    /**
     * Ps made so far, active or retired: {@code allp[0, allocated)}; only grows. Written under the
     * lock by {@link ProcResize} after the Ps it covers; loops over every P's queue, timers or
     * counters read it once and index below it.
     */
    volatile int allocated;
    final int maxCarriers;
    final Duration timeSlice;
    final Duration keepAlive;
    /** Room for {@code maxCarriers} Ps, the bound of {@code procs}; filled up to {@link #allocated}. */
    final Processor[] allp;
    final ReentrantLock lock = new CarrierSafeLock();
    final Failures failures = new Failures(this);
    final GlobalQueue global;
    /** Which submissions are timed; {@code sampleEvery} 0: sampling is off. */
    final LatencySamples latencySamples;
    final Idle idle;
    final Shutdown shutdown = new Shutdown(this);
    final Carriers carriers;
    final ProcResize resize = new ProcResize(this);
    final RunLoop loop;
    final Sysmon sysmon;
    private final Thread.UncaughtExceptionHandler exceptionHandler;

    /**
     * Tests only: run by each carrier before each task, outside it; what it throws is a carrier
     * failure. Set once before any carrier starts (carriers start at the first wake-up), so a
     * plain field: {@code Thread.start} publishes it.
     */
    Runnable loopFaultForTests;

    /** For tests: runs before each timer move of a shrinking resize ({@link ProcResize}); null in use. */
    Runnable timerMoveFaultForTests;

    /**
     * The latencies as the last {@code loomgmp.SchedLatency} events covered them, so that the next
     * ones cover only what came after. Guarded by {@link FlightRecording}'s latency lock.
     */
    SchedLatency latencyEmitted;

    volatile CarrierLocator carrierLocator;
    /** The thread a task belongs to, for JFR events and snapshots; see {@link io.loomgmp.dispatcher.loom.LoomSupport#taskThread}. */
    volatile Function<Runnable, Thread> taskThread = new Function<>() {
        @Override
        public Thread apply(Runnable task) { // none known; not a lambda: see CarrierLocator
            return null;
        }
    };

    Scheduling(String name, int procs, int maxCarriers, Duration timeSlice, Duration keepAlive,
               Thread.UncaughtExceptionHandler exceptionHandler, CarrierLocator carrierLocator,
               ThreadFactory carrierFactory, boolean sysmonOn, int latencySampleEvery) {
        this.name = name;
        this.procs = procs;
        this.latencySamples = new LatencySamples(latencySampleEvery);
        this.maxCarriers = maxCarriers;
        this.timeSlice = timeSlice;
        this.keepAlive = keepAlive;
        this.exceptionHandler = exceptionHandler;
        this.carrierLocator = carrierLocator;
        this.allp = new Processor[maxCarriers];
        this.global = new GlobalQueue(failures, procs, maxCarriers);
        this.idle = new Idle(lock, this, maxCarriers);
        this.carriers = new Carriers(this, carrierFactory != null ? carrierFactory : Carriers.defaultFactory(name));
        lock.lock();
        try {
            idle.ensureRoom(procs);
            for (int i = procs - 1; i >= 0; i--) { // pushed in reverse so P0 is handed out first
                allp[i] = new Processor(i, this);
                idle.putP(allp[i]);
            }
            this.allocated = procs;
        } finally {
            lock.unlock();
        }
        initialiseClassesUsedLater();
        this.loop = new RunLoop(this);
        this.sysmon = new Sysmon(this, sysmonOn);
        FlightRecording.register(this);
        sysmon.start();
    }

    /**
     * Initialises now, while memory is to be had, the classes the scheduler first uses at some
     * later moment (the first timer, the first latency sample recorded, the first failure). A
     * class whose initialiser fails, as it does on an {@code OutOfMemoryError} when the
     * application has filled the heap at that moment, stays unusable for the rest of the JVM's
     * life: a timer class that failed so would fail every virtual thread's sleep from then on.
     */
    private static void initialiseClassesUsedLater() {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        for (Class<?> type : new Class<?>[] {Timer.class, LatencyRecorder.class, LatencyHistogram.class,
                LatencySamples.Sample.class, Lease.class, RunSource.class, Placement.class, SchedulerFailure.class}) {
            try {
                lookup.ensureInitialized(type);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e); // cannot happen: they are this package's classes
            }
        }
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
            } else if (p != null && !global.isEmpty()) {
                // Others wait on the global queue: the back of its ready lane. Not behind local
                // work: with more yielding threads than a ring holds, the ring overflows into the
                // ready lane, and those served from there (one per GLOBAL_CHECK_NANOS while the
                // ring has work) would wait for every local yielder's turns; in the ready lane all
                // take turns in order (Go's Gosched queues every yield globally). The ready lane,
                // not the yielded one: a voluntary yield gives way to runnable work, not to every
                // preempted CPU hog's next time slice. With the global queue empty, the ring's
                // tail: no shared queue touched. Racy reads, a heuristic: a wrong guess only
                // changes which queue the task waits in.
                placement = Placement.GLOBAL;
            }
        }
        if (Events.on()) {
            Events.wake(this, m, p, task, yielded ? Placement.GLOBAL : placement);
        }
        // A sampled task is queued inside its sample, which carries the timestamp (LatencySamples).
        Runnable queued = latencySamples.on() ? sampleLatency(m, task) : task;
        boolean wake = true;
        boolean local = false;
        boolean inLoop = p != null && m.thread == Thread.currentThread() && p.holder == m.inLoop;
        // Act as the P's owner only while holding it: in the scheduling loop (timers run there),
        // or in a task after beginOwnerOp (sysmon may have retaken the P).
        if (p == null || yielded || placement == Placement.GLOBAL || !(inLoop || p.beginOwnerOp(m))) {
            submitGlobal(queued, m != null, yielded);
        } else {
            local = true;
            try {
                if (placement == Placement.RUNNEXT) {
                    queued = p.runQueue.pushNext(queued); // the displaced occupant, if any, goes to the tail
                    // A hand-off into an empty runnext wakes nobody (as in Tokio): the submitter
                    // is most likely about to block, and then its own carrier runs the task at
                    // once; a woken carrier would spin and, after the grace, steal it to another
                    // CPU. If the submitter keeps the P instead, sysmon wakes a carrier.
                    wake = queued != null;
                }
                if (queued != null) {
                    Runnable[] overflow = p.runQueue.pushOrOverflow(queued);
                    if (overflow != null) {
                        p.count(Counter.OVERFLOWS);
                        global.putOverflow(overflow, overflow.length); // lock-free, and never fails
                    }
                }
            } finally {
                if (!inLoop) {
                    p.endOwnerOp(m);
                }
            }
        }
        if (wake) {
            wakeAfterQueueing(local);
        }
    }

    /**
     * The submitter of {@code task}, which is about to queue it, with sampling on; {@code m}: the
     * carrier it runs on, or null. Samples the submission, one in about
     * {@link LatencySamples#sampleEvery}: the task waits from now, or from its timer's due time
     * when the loop of {@code m} is firing that timer. Returns what to queue: the task inside its
     * sample, or the task itself. Never throws: a failure (an {@code OutOfMemoryError} allocating
     * the sample) is reported and the task is queued untimed.
     */
    private Runnable sampleLatency(Carrier m, Runnable task) {
        try {
            if (!latencySamples.shouldSample(m)) {
                return task;
            }
            // The timer's task runs on the carrier itself (RunLoop.runDueTimers), not on a virtual thread.
            boolean timer = m != null && m.firingTimer && m.thread == Thread.currentThread();
            long queuedAt = timer ? m.firingTimerDue : System.nanoTime();
            return LatencySamples.sample(task, queuedAt, timer);
        } catch (Throwable failure) {
            failures.report(SchedulerFailure.Site.LATENCY_SAMPLE, failure, "the task was queued untimed");
            return task;
        }
    }

    /**
     * After a task was queued: a P's ring ({@code local}) or the global queue. Never throws
     * ({@link Idle#wakeP} reports its failures).
     */
    void wakeAfterQueueing(boolean local) {
        if (local) {
            // StoreLoad: the ring publishes the task with release stores (its tail, endOwnerOp),
            // which a later volatile read may pass. wakeP's read of the spinning count must not
            // move ahead of them, or it can see a spinner that has already given up and re-checked
            // the queues without seeing the task: an idle P beside a waiting task
            // (jcstress: WakePVsSpinnerRelease.LocalRing). The global path needs no fence: its
            // put is a CAS.
            VarHandle.fullFence();
        }
        if (idle.idleProcs() == 0) {
            sysmon.nudge(); // every P busy: one may be held by a blocked carrier
        }
        idle.wakeP(); // after queueing: see Idle for why this order loses no wake-up
    }

    /**
     * Any thread. Puts {@code task} on the global queue without a lock. Outside work is rejected
     * once closed; a put that raced with {@code close} is taken back and rejected, unless a
     * carrier already took it (then it runs): so every task either runs or is rejected, never
     * left behind in a terminated scheduler.
     */
    private void submitGlobal(Runnable task, boolean fromOurCarrier, boolean yielded) {
        if (shutdown.isClosed() && !fromOurCarrier) {
            throw shutdown.rejected();
        }
        if (yielded) {
            global.putYielded(task);
        } else {
            global.putReady(task);
        }
        if (shutdown.isClosed() && !fromOurCarrier && global.remove(task)) {
            lock.lock();
            try {
                shutdown.signalIfQuiescent(); // close() may have seen the task and now waits for it
            } finally {
                lock.unlock();
            }
            throw shutdown.rejected();
        }
    }

    // ---------------------------------------------------------------- timers

    /**
     * Any thread. Runs {@code task} on a carrier once {@code delayNanos} have passed: a timer in
     * the heap of the caller's P (any P for a thread that is not one of our carriers). The
     * scheduling loop of whichever carrier holds that P runs it when due, or another P steals it.
     *
     * @throws RejectedExecutionException once the scheduler has terminated, or is closed and the
     *         caller is not one of our carriers
     */
    Future<?> schedule(Runnable task, long delayNanos) {
        Carrier m = currentCarrier();
        // As for submit: once closed, only our carriers' tasks (the continuation of accepted
        // work: a virtual thread that sleeps while the scheduler shuts down) add timers.
        if (shutdown.isTerminated() || shutdown.isClosed() && m == null) {
            throw shutdown.rejected();
        }
        Processor p = m != null && m.p != null ? m.p : allp[ThreadLocalRandom.current().nextInt(procs)];
        long when = System.nanoTime() + Math.clamp(delayNanos, 0, MAX_TIMER_DELAY_NANOS);
        Timer timer = p.timers.add(task, when);
        if (timer == null) {
            // p was retired (setProcs): its heap takes no more timers, its own move elsewhere.
            // P0 is never retired.
            p = allp[0];
            timer = p.timers.add(task, when);
        }
        if (m == null && shutdown.isClosed() && timer.cancel(false)) {
            // Raced with close (our add, then our read of closed; close's write of closed, then
            // its read of the pending timers: one sees the other). Cancelling it tells shutdown
            // (TimerHeap.cancelled), which may have counted it pending and now waits for it.
            throw shutdown.rejected();
        }
        if (p.timers.isEarliest(timer)) {
            // A virtual thread's timeout is added by its carrier as it unmounts: if that P has
            // nothing else to do, the carrier is about to park, and then sleeps for this timer.
            boolean adderWillPark = m != null && Thread.currentThread() == m.thread && m.p == p
                    && p.runQueue.isEmpty() && global.isEmpty();
            idle.timerAdded(when, adderWillPark);
        }
        return timer;
    }

    /** Any thread: delay from {@code now} to the earliest timer of any P (0 if due), or -1 if none. */
    long timerDelay(long now) {
        long delay = -1;
        for (int i = 0, n = allocated; i < n; i++) { // retired Ps too: see ProcResize's failure model
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
    int pendingTimers() {
        int pending = 0;
        for (int i = 0, n = allocated; i < n; i++) {
            pending += allp[i].timers.pending();
        }
        return pending;
    }

    /** Any thread: whether a timer of any P is due at {@code now}. */
    boolean anyTimerDue(long now) {
        for (int i = 0, n = allocated; i < n; i++) {
            if (allp[i].timers.hasDue(now)) {
                return true;
            }
        }
        return false;
    }

    /** The carrier the caller runs on, if it is ours (as the carrier locator sees it). */
    Carrier currentCarrier() {
        Carrier m = Carriers.of(carrierLocator.currentCarrier());
        return m != null && m.scheduling == this ? m : null;
    }

    /** The calling thread itself, if it is one of our carriers (not a virtual thread on one). */
    Carrier currentCarrierThread() {
        Carrier m = Carriers.of(Thread.currentThread());
        return m != null && m.scheduling == this ? m : null;
    }

    /** Whether the calling thread is one of our carriers and is running {@code task} right now. */
    boolean isCurrentTask(Runnable task) {
        Carrier m = currentCarrierThread();
        return m != null && m.running == task;
    }

    boolean isOurCarrier(Thread thread) {
        Carrier m = Carriers.of(thread);
        return m != null && m.scheduling == this;
    }

    /**
     * Hands what a task (or a timer's task) threw, or a {@link SchedulerFailure}, to the
     * uncaught-exception handler, with the current thread. Never throws: a handler that throws is
     * printed to standard error.
     */
    void reportToHandler(Throwable failure) {
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

    void close() {
        shutdown.close();
    }

    /**
     * Owner of {@code p} (holding it, or exclusively: in transit, retaken, failing): moves its
     * runnext and ring to the global ready lane; returns whether it moved any. Accepted work: queued
     * even if closed.
     */
    boolean moveQueueToGlobal(Processor p) {
        boolean moved = false;
        for (Runnable task; (task = p.runQueue.pollNext()) != null || (task = p.runQueue.poll()) != null; ) {
            global.putMoved(task); // never fails, even out of memory (GlobalQueue's reserve)
            moved = true;
        }
        return moved;
    }

    /**
     * Any thread, no lock: a one-line description of the scheduler's state, for
     * {@code GmpScheduler.toString} (and so for {@code jcmd Thread.vthread_scheduler} under the
     * agent). Racy reads: each figure is exact only at its own instant.
     */
    String summary() {
        int active = procs;
        int local = 0;
        int timers = 0;
        StringBuilder queues = new StringBuilder();
        for (int i = 0; i < active; i++) {
            Processor p = allp[i];
            int n = p.runQueue.size() + (p.runQueue.hasNext() ? 1 : 0);
            local += n;
            timers += p.timers.pending();
            queues.append(i == 0 ? "" : " ").append(n);
        }
        int carrierCount = idle.carriers();
        int spinning = idle.spinning();
        int idleCarriers = idle.idleCarriers();
        int blocked = carriers.detached();
        int global = this.global.size();
        String state = shutdown.isTerminated() ? "terminated" : shutdown.isClosed() ? "closed" : "running";
        return "GmpScheduler[" + name + ", procs=" + active + ", idle Ps=" + Math.min(active, idle.idleProcs())
                + ", carriers=" + carrierCount + " (running " + Math.max(0, carrierCount - spinning - idleCarriers - blocked)
                + ", spinning " + spinning + ", idle " + idleCarriers + ", blocked " + blocked + ")"
                + ", max carriers=" + maxCarriers + ", queued=" + (global + local) + " (global " + global
                + ", local [" + queues + "]), timers=" + timers + ", " + state + "]";
    }

    /**
     * Any thread, no lock, no allocation: tasks waiting to run, on the global queue and in the
     * active Ps' rings and runnext slots; racy, as {@link #summary} is.
     */
    long queuedTasks() {
        long queued = global.size();
        for (int i = 0, n = procs; i < n; i++) {
            RunQueue q = allp[i].runQueue;
            queued += q.size() + (q.hasNext() ? 1 : 0);
        }
        return queued;
    }

    /**
     * Any thread, no lock, no allocation: tasks running now, on an active P or on a carrier
     * whose P was handed off while it blocked.
     */
    int runningTasks() {
        int running = carriers.detached();
        for (int i = 0, n = procs; i < n; i++) {
            Carrier m = allp[i].owner();
            if (m != null && m.runningTask() != null) {
                running++;
            }
        }
        return running;
    }

    // ---------------------------------------------------------------- snapshot

    /**
     * {@code VT <id> <name>} for a virtual thread's task (no name if it has none), else
     * {@code task <class>}. A {@link #taskThread} function that throws costs only the thread:
     * the task is then described by its class.
     */
    String describe(Runnable task) {
        Thread thread;
        try {
            thread = taskThread.apply(task);
        } catch (Throwable failure) {
            thread = null;
        }
        if (thread == null) {
            String type = task.getClass().getName();
            int lambda = type.indexOf("$$Lambda");
            return "task " + (lambda < 0 ? type : type.substring(0, lambda) + " lambda");
        }
        String name = thread.getName();
        return (thread.isVirtual() ? "VT " : "thread ") + thread.threadId() + (name.isEmpty() ? "" : " " + name);
    }

    /** Any thread; never throws for a task it cannot describe (see {@link #describe}). */
    SchedulerSnapshot snapshot() {
        // procs before allocated: allocated >= procs for any procs read (see ProcResize). The
        // list shows the active Ps; the totals count every P ever made, so that they never go
        // down when Ps are retired.
        int active = procs;
        int made = allocated;
        List<SchedulerSnapshot.ProcessorSnapshot> ps = new ArrayList<>(active);
        long[] totals = new long[Counter.values().length];
        long timersFired = 0;
        long now = System.nanoTime();
        for (int i = 0; i < made; i++) {
            Processor p = allp[i];
            for (Counter c : Counter.values()) {
                totals[c.ordinal()] += p.counted(c);
            }
            timersFired += p.timers.fired();
            if (i >= active) {
                continue;
            }
            Carrier m = p.owner();
            Runnable task = m == null ? null : m.runningTask();
            long tasksRun = p.counted(Counter.TASKS_RUN);
            ps.add(new SchedulerSnapshot.ProcessorSnapshot(
                    p.id, p.holder == null, p.runQueue.size(), p.runQueue.hasNext(), p.schedtick(),
                    tasksRun, p.timers.pending(), p.preemptRequested,
                    task == null ? null : describe(task), task == null ? -1 : sysmon.runningNanos(p, tasksRun, now)));
        }
        int carrierCount = idle.carriers();
        int spinning = idle.spinning();
        int idleCarriers = idle.idleCarriers();
        int blocked = carriers.detached();
        return new SchedulerSnapshot(
                name, active, Math.min(active, idle.idleProcs()), carrierCount,
                Math.max(0, carrierCount - spinning - idleCarriers - blocked), spinning, idleCarriers, blocked,
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
                carriers.handoffs.sum(),
                timersFired,
                failures.count(),
                shutdown.isTerminated(),
                latency());
    }

    /** Any thread: the scheduling latencies recorded so far, summed over the Ps' recorders. */
    SchedLatency latency() {
        int sources = RunSource.ALL.length;
        long[][] counts = new long[sources][LatencyHistogram.BUCKETS];
        long[] totals = new long[sources];
        long[] maxima = new long[sources];
        for (int i = 0, n = allocated; i < n; i++) {
            LatencyRecorder recorder = allp[i].latencyRecorderIfAny();
            if (recorder != null) {
                recorder.addTo(counts, totals, maxima);
            }
        }
        LatencyHistogram[] bySource = new LatencyHistogram[sources];
        for (int i = 0; i < sources; i++) {
            bySource[i] = new LatencyHistogram(counts[i], totals[i], maxima[i]);
        }
        return SchedLatency.of(latencySamples.sampleEvery, bySource);
    }
}
