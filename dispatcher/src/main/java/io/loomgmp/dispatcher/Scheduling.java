package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.CarrierLocator;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The scheduler's shared state (Go's {@code schedt}) and its entry points: {@link #submit} and
 * {@link Timers#schedule}. Each protocol has one owner, which this class wires together:
 *
 * <pre>
 * submit ──► runnext / local ring (submitter is on a carrier holding P)  ──┐
 *        ├─► global ready lane (anyone else, Placement.GLOBAL, overflow,   ─┤ then Idle.wakeP
 *        │   a yield from a ring half full while the lane has work)        │
 *        └─► global yielded lane (preempted at a poll)  ─────────────────┘
 * schedule(task, delay) ──► the current P's timer heap (Go's p.timers)
 *
 * RunLoop      a carrier's loop: findRunnable (timers, runnext, ring, global, steal) and run
 * Idle         idle Ps, spinning, and every decision to wake a carrier
 * Parking      a carrier without a P: give it up, re-check, park, the hand-over of a P, the
 *              timer sleeper, retirement after the keep-alive
 * HandOff      a blocked carrier's P handed to another carrier, and taken back afterwards
 * Carriers     a carrier's thread: start (ThreadFactory), its life, failure
 * Processor    a P: its RunQueue (runnext and ring), its TimerHeap, its Lease (who holds it;
 *              every change of the holder is one of its methods)
 * Sysmon       preemption requests, hand-offs of blocked carriers' Ps, thief wake-ups
 * Shutdown     close and termination
 * Events       every JFR event the data path emits; Failures: every failure it reports
 * LatencySamples  which queued tasks carry a timestamp; LatencyRecorder: each P's latency histograms
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
    final Failures failures;
    final GlobalQueue global;
    /** Which submissions are timed; {@code sampleEvery} 0: sampling is off. */
    final LatencySamples latencySamples;
    final Idle idle;
    final Parking parking;
    final HandOff handOff = new HandOff(this);
    final Timers timers;
    final Shutdown shutdown = new Shutdown(this);
    final Carriers carriers;
    final ProcResize resize = new ProcResize(this);
    final RunLoop loop;
    final Sysmon sysmon;
    /** Whether {@link #start} ran. Only the builder's thread reads or writes it. */
    private boolean started;

    /**
     * The latencies as the last {@code loomgmp.SchedLatency} events covered them, so that the next
     * ones cover only what came after. Guarded by {@link FlightRecording}'s latency lock.
     */
    LatencyTotals latencyEmitted;

    volatile CarrierLocator carrierLocator;
    /** The thread a task belongs to, for JFR events and snapshots; see {@link io.loomgmp.dispatcher.loom.LoomSupport#taskThread}. */
    volatile Function<Runnable, Thread> taskThread = new Function<>() {
        @Override
        public Thread apply(Runnable task) { // none known; not a lambda: see CarrierLocator
            return null;
        }
    };

    /**
     * Builds every part from {@code config} and starts nothing: no thread runs and nothing is
     * registered until {@link #start}, so a scheduler that tests drive by hand (unit tests,
     * jcstress: {@link SchedulerConfig#inert}) is built the same way and simply never started.
     */
    Scheduling(SchedulerConfig config) {
        this.name = config.name();
        this.procs = config.procs();
        this.maxCarriers = config.maxCarriers();
        this.timeSlice = config.timeSlice();
        this.keepAlive = config.keepAlive();
        this.carrierLocator = config.carrierLocator();
        this.failures = new Failures(name, config.exceptionHandler());
        this.latencySamples = new LatencySamples(config.latencySampleEvery());
        this.allp = new Processor[maxCarriers];
        this.global = new GlobalQueue(failures, procs, maxCarriers, config.seams().allocationFault());
        this.idle = new Idle(lock, this, maxCarriers);
        this.parking = new Parking(this);
        this.timers = new Timers(this, config.seams().timerMoveFault());
        ThreadFactory factory = config.threadFactory();
        this.carriers = new Carriers(this, factory != null ? factory : Carriers.defaultFactory(name));
        lock.lock();
        try {
            for (int i = procs - 1; i >= 0; i--) { // pushed in reverse so P0 is handed out first
                allp[i] = newProcessor(i);
                idle.putP(allp[i]);
            }
            this.allocated = procs;
        } finally {
            lock.unlock();
        }
        initialiseClassesUsedLater();
        this.loop = new RunLoop(this, config.seams());
        this.sysmon = new Sysmon(this, config.sysmon(), config.seams());
    }

    /**
     * Starts the scheduler once it is built: registers it for JFR's periodic events and starts
     * sysmon (unless it is off). Carriers start at the first wake-up. Called once, by the thread
     * that built it. If sysmon's thread cannot be started ({@code OutOfMemoryError}), that is
     * thrown, with the scheduler unregistered again and no carrier started.
     *
     * @throws IllegalStateException if called twice
     */
    void start() {
        if (started) {
            throw new IllegalStateException("scheduler " + name + " is started already");
        }
        started = true;
        FlightRecording.register(this);
        try {
            sysmon.start();
        } catch (Throwable failure) { // no thread to be had: the builder throws, and nothing is left registered
            FlightRecording.unregister(this);
            throw failure;
        }
    }

    /** A new P with id {@code id}: its timers report to this scheduler. Nothing else is done with it. */
    Processor newProcessor(int id) {
        return new Processor(id, lock, new TimerHeap(shutdown, failures, timers.withTimers, id));
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
        // The running task giving way of its own accord (Thread.yield): its carrier goes back to
        // its loop as soon as the task returns and takes work there, this task included, so
        // nobody needs waking for it (Go's Gosched wakes nobody either). A carrier woken now
        // would spin, or steal this very task off the P about to run it again, and a yield to
        // the local ring would pay the fence that a wake-up needs.
        boolean givingWay = false;
        if (placement == Placement.YIELD) {
            placement = Placement.LOCAL;
            boolean requeuesItself = m != null && m.running == task;
            givingWay = requeuesItself && !m.yieldingAtPoll;
            if (requeuesItself && m.yieldingAtPoll) {
                m.yieldingAtPoll = false;
                yielded = true; // preempted: behind every runnable task, on any P (Go's gopreempt_m)
                if (p != null) { // m holds p: the holder's write (RunLoop's step 1b)
                    long now = System.nanoTime();
                    long ran = sysmon.runningNanos(p, p.counted(Counter.TASKS_RUN), now);
                    p.preemptedSliceEnded(task, now, ran, timeSlice.toNanos());
                }
            } else if (p != null && global.readySize() > 0) {
                // Others wait on the global ready lane: the yield gives way to them, as Go's
                // Gosched does by queuing the yielder behind them. The ready lane, not the yielded
                // one: a voluntary yield gives way to runnable work, not to every preempted CPU
                // hog's next time slice. Racy reads of counts, a heuristic: a wrong guess only
                // changes which queue the task waits in, or costs one look at the lane.
                if (requeuesItself && p.runQueue.size() < RunLoop.GLOBAL_BATCH_MAX) {
                    // A short ring: the yielder goes to its tail as ever, and this P's next
                    // schedule takes a ready task before the ring (Processor.readyTurnOwed). So
                    // the yield takes a task out of the shared queue instead of adding one: a
                    // yield storm beside a few global tasks drains them, where queuing every
                    // yield globally kept the lane from ever running dry (with 8 Ps on 2 cores,
                    // 97 % of the yields went through it, at twice the cost of a local one).
                    p.readyTurnOwed = true; // m holds p: the holder's field, read by its own loop
                } else {
                    // A long ring, most likely more yielders than a ring holds: its overflow
                    // waits on the ready lane, served one task per GLOBAL_CHECK_NANOS while the
                    // ring has work, and would wait for hundreds of local turns. There all take
                    // turns in order: the back of the ready lane.
                    placement = Placement.GLOBAL;
                }
            }
        }
        if (Events.on()) {
            Events.wake(this, m, p, task, yielded ? Placement.GLOBAL : placement);
        }
        // A sampled task is queued inside its sample, which carries the timestamp (LatencySamples).
        Runnable queued = latencySamples.on() ? latencySamples.queued(m, task, failures) : task;
        boolean wake = true;
        boolean local = false;
        boolean inLoop = p != null && m.thread == Thread.currentThread() && p.holder() == m.inLoop;
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
                    pushLocal(p, queued);
                }
            } finally {
                if (!inLoop) {
                    p.endOwnerOp(m);
                }
            }
        }
        if (wake && !givingWay) {
            wakeAfterQueueing(local);
        }
    }

    /**
     * Owner of {@code p}: queues {@code task} at the tail of its ring; a full ring moves its older
     * half and {@code task} to the global ready lane, as one batch. Lock-free, and never fails.
     */
    void pushLocal(Processor p, Runnable task) {
        Object[] overflow = p.runQueue.pushOrOverflow(task);
        if (overflow != null) {
            p.count(Counter.OVERFLOWS);
            global.putOverflow(overflow, overflow.length);
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


    /** The carrier the caller runs on, if it is ours (as the carrier locator sees it). */
    Carrier currentCarrier() {
        Carrier m = CarrierTable.of(carrierLocator.currentCarrier());
        return m != null && m.scheduling == this ? m : null;
    }

    /** The calling thread itself, if it is one of our carriers (not a virtual thread on one). */
    Carrier currentCarrierThread() {
        Carrier m = CarrierTable.of(Thread.currentThread());
        return m != null && m.scheduling == this ? m : null;
    }

    /** Whether the calling thread is one of our carriers and is running {@code task} right now. */
    boolean isCurrentTask(Runnable task) {
        Carrier m = currentCarrierThread();
        return m != null && m.running == task;
    }

    boolean isOurCarrier(Thread thread) {
        Carrier m = CarrierTable.of(thread);
        return m != null && m.scheduling == this;
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

}
