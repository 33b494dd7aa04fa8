package io.loomgmp.dispatcher;

/**
 * A {@link GmpScheduler} seen through JMX, under {@code io.loomgmp:type=Scheduler,name=<name>}
 * (see {@link GmpSchedulerMXBeans}), so that JConsole and JMC's MBean browser show what
 * {@link GmpScheduler#snapshot()} returns. Every attribute is read-only and read from a fresh
 * snapshot, so two attributes are each exact at some moment, not necessarily the same one.
 * The counters are cumulative since the scheduler started.
 */
public interface GmpSchedulerMXBean {
    /** The scheduler's name; its carriers are named {@code <name>-M<n>}. */
    String getName();

    /** Number of Ps: how many tasks run at once. */
    int getProcs();

    /** Ps on the idle list. */
    int getIdleProcs();

    /** Upper bound on carrier threads. */
    int getMaxCarriers();

    /** Whether {@link GmpScheduler#close()} has been called. */
    boolean isClosed();

    /** Carrier threads alive. */
    int getCarriers();

    /** Carriers holding a P, neither spinning nor parked: running tasks, or in transit. */
    int getRunningCarriers();

    /** Carriers searching for work. */
    int getSpinningCarriers();

    /** Carriers parked on the idle list. */
    int getIdleCarriers();

    /** Carriers still in a task whose P sysmon handed to another carrier. */
    int getBlockedCarriers();

    /** Tasks on the global queue. */
    int getGlobalQueueLength();

    /** Tasks queued on all Ps together, {@code runnext} included: the sum of {@link #getLocalQueueLengths()}. */
    int getLocalQueueLength();

    /**
     * Tasks queued on each P, by P id, {@code runnext} included: the bracketed figures of the
     * schedtrace line.
     */
    int[] getLocalQueueLengths();

    /**
     * Each P, by id: its state, its queue, and the task it is running now with how long it has
     * been running (JConsole shows them as a table; {@code loomgmp top} as its P rows).
     */
    ProcessorState[] getProcessors();

    /**
     * One P now (a JMX composite); see {@link SchedulerSnapshot.ProcessorSnapshot}.
     *
     * @param id               the P's index
     * @param state            {@code idle}, {@code running} (a task) or {@code scheduling} (held
     *                         by a carrier between tasks)
     * @param localQueueLength tasks in its ring, not counting runnext
     * @param runnext          whether its runnext slot holds a task
     * @param tasksRun         tasks run on it
     * @param pendingTimers    timers waiting in its heap
     * @param running          the task it is running: {@code VT <id> <name>} or
     *                         {@code task <class>}; null when it runs none
     * @param runningNanos     how long that task has been running, as sysmon saw it (short by
     *                         up to 10 ms); 0 if sysmon has not looked at it yet; -1 when none
     */
    record ProcessorState(int id, String state, int localQueueLength, boolean runnext, long tasksRun,
                          int pendingTimers, String running, long runningNanos) {
        static ProcessorState of(SchedulerSnapshot.ProcessorSnapshot p) {
            return new ProcessorState(p.id(), p.state(), p.localQueueLength(), p.runnextOccupied(), p.tasksRun(),
                    p.pendingTimers(), p.running(), p.runningNanos());
        }
    }

    /** Tasks run, over all Ps. */
    long getTasksRun();

    /** Tasks taken from {@code runnext} (LIFO hand-offs). */
    long getRunnextHits();

    /** Tasks taken from local rings. */
    long getLocalPops();

    /** Tasks taken from the global queue in batches, when the local queue was empty. */
    long getGlobalGrabs();

    /** Tasks taken from the global queue on the fairness tick. */
    long getFairnessTickGrabs();

    /** Successful steals. */
    long getSteals();

    /** Tasks moved by steals. */
    long getStolenTasks();

    /** Times a full local ring moved half of itself to the global queue. */
    long getOverflows();

    /** Times a carrier parked on the idle list. */
    long getParks();

    /** Times a carrier started spinning. */
    long getSpins();

    /** Times sysmon asked a P's running task to give the P up. */
    long getPreemptRequests();

    /** Times sysmon took a P from a carrier blocked in a task and handed it to another carrier. */
    long getHandoffs();

    /** Timers waiting in the Ps' heaps: sleeping virtual threads and pending timeouts. */
    int getPendingTimers();

    /** Timers run so far: sleeps and timeouts that expired. */
    long getTimersFired();

    /** Failures inside the scheduler (not in tasks) that it recovered from; see {@link SchedulerFailure}. */
    long getFailures();

    /**
     * About one task in this many is timed for the scheduling latency ({@code gmp.latency.sample});
     * 0: none, and the latency attributes stay 0.
     */
    int getLatencySample();

    /** Tasks timed for the scheduling latency since the scheduler started (the samples). */
    long getLatencySamples();

    /**
     * Median scheduling latency since the scheduler started, in nanoseconds: how long a sampled
     * task waited, runnable, for a carrier. An upper bound, at most 25 % above (see
     * {@link LatencyHistogram}).
     */
    long getLatencyP50Nanos();

    /** 99th percentile of the scheduling latency since the scheduler started, in nanoseconds; an upper bound as above. */
    long getLatencyP99Nanos();

    /** Longest scheduling latency of a sampled task since the scheduler started, in nanoseconds (exact). */
    long getLatencyMaxNanos();

    /** Mean scheduling latency since the scheduler started, in nanoseconds (exact). */
    double getLatencyMeanNanos();

    /**
     * The same figures by where the tasks waited, one row per source in
     * {@link LatencyTotals#SOURCES}' order: {@code runnext}, {@code local}, {@code global},
     * {@code fairness}, {@code stolen}, {@code timer} (JConsole shows them as a table).
     */
    SourceLatency[] getLatencyBySource();

    /**
     * Go's {@code GODEBUG=schedtrace} line, timed from the JVM's start, with the scheduling
     * latency since the scheduler started, e.g.
     * {@code SCHED 1003ms: gomaxprocs=2 idleprocs=2 threads=4 spinningthreads=0 idlethreads=2 runqueue=0 [0 0] latp50=12us latp99=3.1ms}.
     */
    String getSchedtraceLine();

    /**
     * The scheduling latency of one source since the scheduler started (a JMX composite).
     *
     * @param source     where the tasks waited (see {@link LatencyTotals})
     * @param samples    tasks timed
     * @param p50Nanos   median, nanoseconds (an upper bound, at most 25 % above)
     * @param p99Nanos   99th percentile, nanoseconds (likewise)
     * @param maxNanos   longest, nanoseconds
     * @param meanNanos  mean, nanoseconds
     */
    record SourceLatency(String source, long samples, long p50Nanos, long p99Nanos, long maxNanos, double meanNanos) {
        static SourceLatency of(String source, LatencyHistogram waits) {
            return new SourceLatency(source, waits.count(), waits.percentileNanos(0.5), waits.percentileNanos(0.99),
                    waits.maxNanos(), waits.meanNanos());
        }
    }
}
