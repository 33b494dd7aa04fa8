package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * Scheduling latency over one period: how long sampled tasks waited between being queued
 * (made runnable) and a carrier starting them, as Go's {@code /sched/latencies:seconds}. The
 * scheduler registers a hook with {@link jdk.jfr.FlightRecorder#addPeriodicEvent} that commits,
 * for each scheduler, one event with {@code source} {@value #SOURCE_ALL} and one for each source
 * that had samples in the period; JFR calls the hook at the period the settings give (1 s in
 * {@code loomgmp.jfc}, 10 ms in {@code loomgmp-trace.jfc}). Each event covers the samples taken
 * since the previous call of the hook, not since the scheduler started.
 *
 * <p>The percentiles and the maximum are upper bounds read from the histogram's buckets: a bucket
 * is at most a quarter wider than its lower bound, so a figure is at most 25 % above the truth.
 */
@Name("loomgmp.SchedLatency")
@Label("Scheduling Latency")
@Description("Periodic: how long sampled tasks waited, runnable, for a carrier, by where they waited")
@Category({"loom-gmp", "Scheduling"})
@StackTrace(false)
@Period("1 s")
public final class SchedLatencyEvent extends jdk.jfr.Event {
    /** Every source together. */
    public static final String SOURCE_ALL = "all";
    /**
     * Made runnable by a timer (a sleep or timeout that expired): timed from the timer's due time,
     * wherever the task then waited. The other sources are {@link RunEvent}'s.
     */
    public static final String SOURCE_TIMER = "timer";

    @Label("Scheduler")
    @Description("The scheduler's name (its carriers are named <name>-M<n>)")
    public String scheduler;

    @Label("Source")
    @Description("Where the tasks waited: all, runnext, local, global, fairness, stolen (the Run event's sources), or timer")
    public String source;

    @Label("Sample Every")
    @Description("About one task in this many is timed (gmp.latency.sample); 0: sampling is off")
    public int sampleEvery;

    @Label("Samples")
    @Description("Tasks timed in the period")
    public long samples;

    @Label("Mean")
    @Description("Mean wait of the tasks timed in the period")
    @Timespan(Timespan.NANOSECONDS)
    public long mean;

    @Label("p50")
    @Description("Median wait in the period: an upper bound, at most 25 % above")
    @Timespan(Timespan.NANOSECONDS)
    public long p50;

    @Label("p99")
    @Description("99th percentile of the wait in the period: an upper bound, at most 25 % above")
    @Timespan(Timespan.NANOSECONDS)
    public long p99;

    @Label("Max")
    @Description("Longest wait in the period: an upper bound, at most 25 % above")
    @Timespan(Timespan.NANOSECONDS)
    public long max;

    @Label("Histogram")
    @Description("The period's non-empty buckets, ascending, as upperBoundNanos:count separated by spaces;"
            + " the last bucket's bound is inf")
    public String histogram;
}
