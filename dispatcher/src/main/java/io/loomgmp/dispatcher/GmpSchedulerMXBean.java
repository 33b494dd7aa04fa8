package io.loomgmp.dispatcher;

/**
 * A {@link GmpScheduler} seen through JMX, under {@code io.loomgmp:type=Scheduler,name=<name>}
 * (see {@link GmpSchedulerMXBeans}), so that JConsole and JMC's MBean browser show what
 * {@link GmpScheduler#snapshot()} returns. Every attribute is read-only and read from a fresh
 * snapshot, so two attributes are each exact at some moment, not necessarily the same one.
 *
 * <p>Besides the getters here, every {@link SchedulerMetric} is an attribute named
 * {@link SchedulerMetric#attributeName()} ({@code Procs}, {@code TasksRun}, ...), described by
 * {@link SchedulerMetric#description()}: an {@code int} for a gauge, a {@code long} for a counter
 * (cumulative since the scheduler started). They come from the enum rather than from getters, so
 * that a figure added there needs nothing here; read them by name
 * ({@code MBeanServerConnection.getAttribute(name, "TasksRun")}), as JConsole and JMC do.
 */
public interface GmpSchedulerMXBean {
    /** The scheduler's name; its carriers are named {@code <name>-M<n>}. */
    String getName();

    /** Upper bound on carrier threads. */
    int getMaxCarriers();

    /** Whether {@link GmpScheduler#close()} has been called. */
    boolean isClosed();

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
