package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.CarrierLocator;
import io.loomgmp.dispatcher.loom.SharedSecrets;

import java.time.Duration;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * A carrier scheduler built on Go's G-M-P design: {@code procs} processors (P), each with a
 * lock-free local run queue and a {@code runnext} slot, a global queue checked on a fairness
 * tick, work stealing, bounded spinning, and carriers (M) that are daemon platform threads named
 * {@code <name>-M<n>}. It is a plain {@link Executor}; the Loom bridge makes virtual threads run
 * on it.
 *
 * <p>{@link #execute} from one of this scheduler's carriers queues the task at the tail of the
 * carrier's local queue; from any other thread, on the global queue. {@link #submit} lets the
 * caller choose (see {@link Placement}). How it schedules, and the guarantees it keeps (fairness,
 * preemption, hand-offs of blocked carriers), is in the project's {@code docs/design.md}.
 */
public final class GmpScheduler implements Executor, AutoCloseable {
    static {
        // The Loom bridge's hooks (io.loomgmp.dispatcher.loom.LoomSupport) reach the internals through it.
        SharedSecrets.setDispatcherAccess(new DispatcherAccessImpl());
    }

    /** Package-private for {@link DispatcherAccessImpl}. */
    final Scheduling scheduling;
    /** Run once each by {@link #close}; e.g. unregistering the MXBean ({@link GmpSchedulerMXBeans}). */
    private final Queue<Runnable> closeActions = new ConcurrentLinkedQueue<>();

    private GmpScheduler(SchedulerConfig config) {
        this.scheduling = new Scheduling(config);
        scheduling.start();
    }

    /** A builder with the defaults: procs = available processors, maxCarriers 256, 10 ms slice. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs {@code task} on this scheduler: at the tail of the current P's local queue when called
     * from one of its carriers, else on the global queue (waking an idle P).
     *
     * @throws NullPointerException if {@code task} is null
     * @throws RejectedExecutionException if the scheduler is closed and the caller is not one of
     *         its carriers
     */
    @Override
    public void execute(Runnable task) {
        submit(task, Placement.LOCAL);
    }

    /**
     * Runs {@code task} on this scheduler, queued where {@code placement} says when the caller
     * runs on one of its carriers (the Loom bridge sees through a virtual thread to its carrier); from any other thread
     * the task goes to the global queue. This is the submission path the Loom bridge uses:
     * {@link Placement#RUNNEXT} for a virtual thread unparked or started by another,
     * {@link Placement#YIELD} for one that yields.
     *
     * @throws NullPointerException if {@code task} or {@code placement} is null
     * @throws RejectedExecutionException if the scheduler is closed and the caller is not one of
     *         its carriers
     */
    public void submit(Runnable task, Placement placement) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(placement, "placement");
        scheduling.submit(task, placement);
    }

    /**
     * Runs {@code task} on one of this scheduler's carriers once {@code delayNanos} have passed
     * (0 or less: at the next schedule), and returns a future that cancels it. The timer goes to
     * the heap of the caller's P (Go's per-P timers): the carrier holding that P runs it from its
     * scheduling loop when it is due, or another P takes it over when that carrier is busy,
     * blocked or parked; a parked carrier sleeps until the earliest timer. A task the timer
     * starts there with {@link #submit} and {@link Placement#RUNNEXT} runs next on that P. The
     * task must be short and must not block: it runs on the carrier itself, between tasks.
     * Cancelling costs a CAS or two; the cancelled timer leaves the heap lazily. As with
     * {@code FutureTask.cancel(false)}, a cancel that comes while the task runs returns true
     * without stopping it. What the task throws goes to the uncaught-exception handler. A pending
     * timer keeps a closed scheduler running until it fires (see {@link #close}). The Loom
     * bridge's agent sends virtual threads' timeouts ({@code sleep}, timed park and wait) here.
     * If the timer cannot be allocated ({@code OutOfMemoryError}), that error is thrown and
     * nothing is scheduled.
     *
     * @throws NullPointerException if {@code task} is null
     * @throws RejectedExecutionException if the scheduler has terminated, or is closed and the
     *         caller is not one of its carriers
     */
    public Future<?> schedule(Runnable task, long delayNanos) {
        Objects.requireNonNull(task, "task");
        return scheduling.timers.schedule(task, delayNanos);
    }

    /** Whether {@code thread} is one of this scheduler's carriers. */
    public boolean isCarrier(Thread thread) {
        return scheduling.isOurCarrier(thread);
    }

    /** An immutable view of the scheduler's state and cumulative counters, taken without locks. */
    public SchedulerSnapshot snapshot() {
        return Snapshots.of(scheduling);
    }

    public String name() {
        return scheduling.name;
    }

    /** Number of Ps (active ones): how many tasks run at once. Changed by {@link #setProcs}. */
    public int procs() {
        return scheduling.procs;
    }

    /**
     * Changes the number of Ps at run time, as Go's {@code runtime.GOMAXPROCS} does (its
     * {@code procresize}), under load and without losing or repeating a task. Growing makes new
     * Ps (or activates retired ones again) and wakes carriers for them. Shrinking retires the Ps
     * with the highest ids: an idle one at once; one that a carrier holds at that carrier's next
     * scheduling point (its running virtual thread is asked to yield at its next preemption poll,
     * as for a time slice; a plain task runs to its end first), when its queued tasks move to the
     * global queue; its timers move to the remaining Ps before this returns. So for a moment
     * after a shrink, more than {@code procs} tasks may still be running; {@link #snapshot()}
     * reports the new count at once. Thread-safe; concurrent calls take effect one after the
     * other. The JDK's {@code VirtualThreadSchedulerMXBean.setParallelism} calls this under the
     * agent.
     *
     * @param procs the number of Ps, from 1 to {@link #maxCarriers()}
     * @throws IllegalArgumentException if {@code procs} is below 1 or above {@link #maxCarriers()}
     * @throws IllegalStateException if the scheduler is closed
     */
    public void setProcs(int procs) {
        scheduling.resize.setProcs(procs);
    }

    public int maxCarriers() {
        return scheduling.maxCarriers;
    }

    public Duration timeSlice() {
        return scheduling.timeSlice;
    }

    public Duration keepAlive() {
        return scheduling.keepAlive;
    }

    /** About one task in this many is timed for the scheduling latency; 0: none. See {@link Builder#latencySample}. */
    public int latencySample() {
        return scheduling.latencySamples.sampleEvery;
    }

    public boolean isClosed() {
        return scheduling.shutdown.isClosed();
    }

    /**
     * Whether the scheduler has terminated: closed, every task (and what they submitted) run,
     * and every carrier told to end. After a {@link #close} from one of its own tasks, this
     * becomes true once that task and the rest have returned.
     */
    public boolean isTerminated() {
        return scheduling.shutdown.isTerminated();
    }

    /**
     * Stops accepting work and timers from threads that are not its carriers, lets every queued
     * task (and whatever those tasks submit) finish and every pending timer fire when it is due
     * (as {@code ScheduledThreadPoolExecutor} does by default; cancel a timer to not wait for
     * it), then stops the carriers and returns. Tasks blocked forever keep it waiting, and so
     * does a virtual thread sleeping on one of its timers. Called from a task running on this scheduler (or a virtual thread
     * on one of its carriers) it does not wait, as that would wait for itself: the scheduler then
     * terminates by itself once that task and the rest have run ({@link #isTerminated}).
     * Idempotent; interruption while waiting is kept for the caller. Last, it unregisters the
     * scheduler's MXBean, if {@link GmpSchedulerMXBeans} registered one.
     */
    @Override
    public void close() {
        scheduling.close();
        runCloseActions();
    }

    /**
     * Any thread. Runs {@code action} once when this scheduler closes, or now if it already has.
     * {@code action} must not throw.
     */
    void onClose(Runnable action) {
        closeActions.add(action);
        if (isClosed()) { // a close that ran before the add has missed it
            runCloseActions();
        }
    }

    /** poll() hands each action to exactly one caller, so concurrent closes run it once. */
    private void runCloseActions() {
        for (Runnable action; (action = closeActions.poll()) != null; ) {
            action.run();
        }
    }

    /**
     * The scheduler's state in one line, read without locks (each figure exact at its own
     * instant), e.g. {@code GmpScheduler[gmp, procs=2, idle Ps=0, carriers=3 (running 2, spinning 0,
     * idle 1, blocked 0), max carriers=256, queued=14 (global 10, local [3 1]), timers=2, running]}:
     * Ps, carriers by state, tasks waiting to run (the global queue, then each P's runnext and
     * ring), pending timers, and whether it is running, closed or terminated. Under the agent,
     * {@code jcmd <pid> Thread.vthread_scheduler} prints this.
     */
    @Override
    public String toString() {
        return Snapshots.summary(scheduling);
    }

    /** Configures a {@link GmpScheduler}. Every setter checks its argument at once. */
    public static final class Builder {
        private int procs = Runtime.getRuntime().availableProcessors();
        private int maxCarriers = 256;
        private Duration timeSlice = Duration.ofMillis(10);
        private Duration keepAlive = Duration.ofSeconds(30);
        private String name = "gmp";
        private Thread.UncaughtExceptionHandler uncaughtExceptionHandler = Failures.PRINT_TO_STANDARD_ERROR;
        private final CarrierLocator carrierLocator = CarrierLocator.CURRENT_THREAD;
        private ThreadFactory threadFactory; // null: daemon threads named <name>-M<n>
        private boolean sysmon = true;
        private int latencySample = LatencySamples.DEFAULT_SAMPLE_EVERY;
        private Runnable loopFault;
        private Runnable timerMoveFault;
        private Runnable allocationFault;
        private java.util.function.BooleanSupplier cpuToSpare;
        private Duration searchSpin = TestSeams.NONE.searchSpin();

        private Builder() {
        }

        /** Number of Ps: how many tasks run at once. Default: available processors. */
        public Builder procs(int procs) {
            if (procs < 1) {
                throw new IllegalArgumentException("procs must be at least 1, was " + procs);
            }
            this.procs = procs;
            return this;
        }

        /** Upper bound on carrier threads, at least {@code procs}. Default 256 (the JDK's maxPoolSize). */
        public Builder maxCarriers(int maxCarriers) {
            if (maxCarriers < 1) {
                throw new IllegalArgumentException("maxCarriers must be at least 1, was " + maxCarriers);
            }
            this.maxCarriers = maxCarriers;
            return this;
        }

        /**
         * How long a task may hold a P before sysmon asks it to yield. Default 10 ms. A duration
         * longer than about 292 years (the longest span {@code System.nanoTime} measures) is
         * taken as that, as {@code Thread.sleep} does.
         */
        public Builder timeSlice(Duration timeSlice) {
            Objects.requireNonNull(timeSlice, "timeSlice");
            if (timeSlice.isNegative() || timeSlice.isZero()) {
                throw new IllegalArgumentException("timeSlice must be positive, was " + timeSlice);
            }
            this.timeSlice = inNanoRange(timeSlice);
            return this;
        }

        /**
         * How long a carrier beyond {@code procs} may stay idle before it ends. Such carriers
         * exist when a wake-up found no parked carrier and started a new one. Default 30 s. A
         * duration longer than about 292 years is taken as that, as for {@link #timeSlice}.
         */
        public Builder keepAlive(Duration keepAlive) {
            Objects.requireNonNull(keepAlive, "keepAlive");
            if (keepAlive.isNegative() || keepAlive.isZero()) {
                throw new IllegalArgumentException("keepAlive must be positive, was " + keepAlive);
            }
            this.keepAlive = inNanoRange(keepAlive);
            return this;
        }

        /**
         * {@code duration}, or {@code Long.MAX_VALUE} nanoseconds if it is longer: the scheduler
         * computes with nanoseconds, and {@code Duration.toNanos()} throws beyond that.
         */
        private static Duration inNanoRange(Duration duration) {
            return Duration.ofNanos(TimeUnit.NANOSECONDS.convert(duration)); // saturates
        }

        /** Carrier thread name prefix: carriers are named {@code <name>-M<n>}. Default {@code gmp}. */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank, was \"" + name + "\"");
            }
            this.name = name;
            return this;
        }

        /**
         * Receives what a task throws (the carrier goes on), and every {@link SchedulerFailure}:
         * a failure inside the scheduler it recovered from. Called on the carrier (or sysmon);
         * must not block. Default: print to standard error.
         */
        public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
            this.uncaughtExceptionHandler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Makes the carrier threads. Each call gets the carrier's {@code Runnable} and must return
         * a new, unstarted platform thread that runs it; the scheduler starts it. A factory that
         * throws or returns null (a container's thread limit, {@code unable to create native
         * thread}) costs no task: the work waits for a carrier that runs, and the failure goes to
         * the uncaught-exception handler as a {@link SchedulerFailure} (see there). Carriers made
         * by a factory keep the factory's name, daemon status and priority; non-daemon carriers
         * keep the JVM alive until {@link #close}. Default: daemon threads named
         * {@code <name>-M<n>}.
         */
        public Builder threadFactory(ThreadFactory factory) {
            this.threadFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /**
         * How many tasks, about, per task timed for the scheduling latency
         * ({@link SchedulerSnapshot#latency()}): the time from queueing a task to a carrier
         * starting it is measured for about one submission in {@code everyNth}, as Go tracks every
         * 8th schedule of a goroutine. 1 times every task; 0 turns sampling off, and with it the
         * little it costs (a sampled task: a small allocation, two {@code nanoTime} calls and two
         * CASes; any task: an identity hash and a lookup in a small table before it runs).
         * Default 8.
         *
         * @throws IllegalArgumentException unless {@code everyNth} is from 0 to 1,000,000
         */
        public Builder latencySample(int everyNth) {
            if (everyNth < 0 || everyNth > LatencySamples.MAX_SAMPLE_EVERY) {
                throw new IllegalArgumentException("latencySample must be from 0 to " + LatencySamples.MAX_SAMPLE_EVERY
                        + " (0 turns sampling off, 1 times every task), was " + everyNth);
            }
            this.latencySample = everyNth;
            return this;
        }

        /**
         * For tests only: without sysmon (no preemption, no hand-off, no thief wake-up), a lost
         * wake-up shows as a task that never runs instead of one that sysmon rescues a few
         * milliseconds later.
         */
        Builder withoutSysmon() {
            this.sysmon = false;
            return this;
        }

        /** For tests only: {@code fault} runs in each carrier's loop before each task, outside it. */
        Builder injectLoopFault(Runnable fault) {
            this.loopFault = fault;
            return this;
        }

        /** For tests only: {@code fault} runs before each timer a shrinking {@code setProcs} moves. */
        Builder injectTimerMoveFault(Runnable fault) {
            this.timerMoveFault = fault;
            return this;
        }

        /**
         * For tests only: {@code fault} runs before each node the global queue allocates; what it
         * throws (an {@code OutOfMemoryError}) stands for a node that could not be allocated.
         */
        Builder injectAllocationFault(Runnable fault) {
            this.allocationFault = fault;
            return this;
        }

        /**
         * For tests only: what sysmon asks to learn whether this JVM has a CPU to spare for
         * another carrier (a machine whose CPUs are all taken answers false for ever).
         */
        Builder injectCpuToSpare(java.util.function.BooleanSupplier cpuToSpare) {
            this.cpuToSpare = cpuToSpare;
            return this;
        }

        /**
         * For tests only: how long a searcher that found nothing waits for work from the busy Ps
         * before it parks (default {@link RunLoop#SEARCH_SPIN_NANOS}); zero turns the wait off.
         */
        Builder searchSpin(Duration wait) {
            this.searchSpin = wait;
            return this;
        }

        /**
         * @throws IllegalArgumentException if {@code maxCarriers < procs}
         */
        public GmpScheduler build() {
            if (maxCarriers < procs) {
                throw new IllegalArgumentException(
                        "maxCarriers must be at least procs (" + procs + "), was " + maxCarriers);
            }
            return new GmpScheduler(config());
        }

        /** What {@link #build} builds from. */
        SchedulerConfig config() {
            return new SchedulerConfig(name, procs, maxCarriers, timeSlice, keepAlive, uncaughtExceptionHandler,
                    carrierLocator, threadFactory, sysmon, latencySample,
                    new TestSeams(loopFault, timerMoveFault, allocationFault, cpuToSpare, searchSpin));
        }
    }
}
