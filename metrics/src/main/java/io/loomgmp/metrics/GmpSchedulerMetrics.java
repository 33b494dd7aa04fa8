package io.loomgmp.metrics;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.LatencyHistogram;
import io.loomgmp.dispatcher.LatencyTotals;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Micrometer meters for a {@link GmpScheduler}, in the manner of Micrometer's
 * {@code ExecutorServiceMetrics}: gauges for its Ps, carriers and queues, function counters for
 * its cumulative counters, and its scheduling latency, every meter tagged
 * {@code name=<scheduler name>} plus the given tags.
 * <pre>{@code
 * // under the agent; binds nothing (and throws nothing) when the JVM runs without it
 * Gmp.scheduler().ifPresent(gmp -> GmpSchedulerMetrics.monitor(registry, gmp));
 * }</pre>
 * This jar must be of the scheduler's version (the agent's, under the agent): the constructor
 * throws {@code IllegalStateException} when the two jars say different versions.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>base unit</th><th>extra tag</th><th>snapshot figure</th></tr>
 *   <tr><td>loomgmp.procs</td><td>gauge</td><td></td><td></td><td>procs</td></tr>
 *   <tr><td>loomgmp.procs.idle</td><td>gauge</td><td></td><td></td><td>idleProcs</td></tr>
 *   <tr><td>loomgmp.carriers</td><td>gauge</td><td>threads</td><td>state=running|spinning|idle|blocked</td>
 *       <td>runningCarriers ... blockedCarriers</td></tr>
 *   <tr><td>loomgmp.carriers.max</td><td>gauge</td><td>threads</td><td></td><td>(maxCarriers)</td></tr>
 *   <tr><td>loomgmp.queue.global</td><td>gauge</td><td>tasks</td><td></td><td>globalQueueLength</td></tr>
 *   <tr><td>loomgmp.queue.local</td><td>gauge</td><td>tasks</td><td>proc=0..procs-1</td>
 *       <td>processors().get(proc).runnable(): ring plus runnext</td></tr>
 *   <tr><td>loomgmp.tasks.run</td><td>counter</td><td>tasks</td><td></td><td>tasksRun</td></tr>
 *   <tr><td>loomgmp.runnext.hits</td><td>counter</td><td>tasks</td><td></td><td>runnextHits</td></tr>
 *   <tr><td>loomgmp.local.pops</td><td>counter</td><td>tasks</td><td></td><td>localPops</td></tr>
 *   <tr><td>loomgmp.global.grabs</td><td>counter</td><td>tasks</td><td></td><td>globalGrabs</td></tr>
 *   <tr><td>loomgmp.fairness.grabs</td><td>counter</td><td>tasks</td><td></td><td>fairnessTickGrabs</td></tr>
 *   <tr><td>loomgmp.steals</td><td>counter</td><td></td><td></td><td>steals</td></tr>
 *   <tr><td>loomgmp.steals.tasks</td><td>counter</td><td>tasks</td><td></td><td>stolenTasks</td></tr>
 *   <tr><td>loomgmp.overflows</td><td>counter</td><td></td><td></td><td>overflows</td></tr>
 *   <tr><td>loomgmp.carrier.parks</td><td>counter</td><td></td><td></td><td>parks</td></tr>
 *   <tr><td>loomgmp.carrier.spins</td><td>counter</td><td></td><td></td><td>spins</td></tr>
 *   <tr><td>loomgmp.preemptions</td><td>counter</td><td></td><td></td><td>preemptRequests</td></tr>
 *   <tr><td>loomgmp.handoffs</td><td>counter</td><td></td><td></td><td>handoffs</td></tr>
 *   <tr><td>loomgmp.timers.pending</td><td>gauge</td><td></td><td></td><td>pendingTimers()</td></tr>
 *   <tr><td>loomgmp.timers.fired</td><td>counter</td><td></td><td></td><td>timersFired</td></tr>
 *   <tr><td>loomgmp.failures</td><td>counter</td><td></td><td></td><td>failures</td></tr>
 *   <tr><td>loomgmp.sched.latency</td><td>function timer</td><td>seconds</td>
 *       <td>source=runnext|local|global|fairness|stolen|timer</td>
 *       <td>latency().source(source): count and total time</td></tr>
 *   <tr><td>loomgmp.sched.latency.histogram</td><td>counter</td><td></td>
 *       <td>source, le=<i>seconds</i>|+Inf</td><td>samples that waited at most le (cumulative buckets)</td></tr>
 *   <tr><td>loomgmp.sched.latency.percentile</td><td>gauge</td><td>seconds</td>
 *       <td>source (or all), phi=0.5|0.99</td><td>the percentile over the last 2 minutes</td></tr>
 *   <tr><td>loomgmp.sched.latency.max</td><td>gauge</td><td>seconds</td>
 *       <td>source (or all)</td><td>the longest wait over the last 2 minutes</td></tr>
 * </table>
 * Base units follow Micrometer's binders: {@code tasks} and {@code threads} where a meter counts
 * those; none for Ps (as {@code system.cpu.count}) and for counts of events such as steals (as
 * {@code executor.steals}). The local queues are one gauge per P rather than a sum, because a
 * meter name has one set of tag keys; a backend sums them.
 *
 * <p><b>Scheduling latency.</b> How long sampled tasks waited, runnable, for a carrier
 * ({@link io.loomgmp.dispatcher.LatencyTotals}). The scheduler keeps it as pre-bucketed,
 * cumulative histograms, and a Micrometer {@code Timer} or {@code DistributionSummary} cannot be
 * fed buckets: it takes one value per {@code record} call and builds its own histogram. Recording
 * into one from the scheduler would put Micrometer (and whatever it throws) on the carriers' run
 * path and make the dispatcher depend on it; replaying bucket counts into one at each scrape
 * would cost one call per sample and smear every wait to a bucket's bound. So the figures are
 * published the way Micrometer publishes a timer's own statistics, from the snapshot:
 * {@code loomgmp.sched.latency} is a {@code FunctionTimer} per source (count and total time:
 * rate and mean in every backend, {@code _count}/{@code _sum} in Prometheus); the buckets are
 * cumulative function counters {@code loomgmp.sched.latency.histogram} tagged {@code le} (in
 * seconds, at every power of 4 from 1,024 ns to 2<sup>34</sup> ns, about 17 s, plus {@code +Inf}),
 * exact bounds of the scheduler's buckets, from which a backend computes any percentile over any
 * window, e.g. {@code histogram_quantile(0.99, sum by (le) (rate(loomgmp_sched_latency_histogram_total[1m])))};
 * and {@code loomgmp.sched.latency.percentile} ({@code phi} tag, as Micrometer's
 * {@code HistogramGauges} name them) and {@code loomgmp.sched.latency.max} are gauges over the last
 * 2 minutes, like a Micrometer timer's ({@link LatencyWindow}), for dashboards without histograms.
 * Percentiles and maxima are upper bounds, at most 25 % above. Those two also have
 * {@code source=all}: percentiles of the sources cannot be added up.
 *
 * <p><b>References.</b> As in {@code ExecutorServiceMetrics}, each meter holds the scheduler
 * weakly (Micrometer's default): the meters do not keep a scheduler alive. Once it is collected
 * the gauges read NaN and the counters keep their last value. A closed scheduler that is still
 * referenced keeps reporting its final figures.
 *
 * <p><b>Cost.</b> The figures come from {@link GmpScheduler#snapshot()}, which reads every P. A
 * snapshot serves every meter read within {@link #SNAPSHOT_MAX_AGE}, so a scrape takes one
 * snapshot, not one per meter; a meter read may therefore lag the scheduler by that much.
 */
public final class GmpSchedulerMetrics implements MeterBinder {
    /** The percentiles published as gauges, as Micrometer's {@code phi} tag writes them. */
    static final List<Double> PERCENTILES = List.of(0.5, 0.99);
    /**
     * The buckets whose counts are published: those whose upper bound is a power of 4, from
     * 1,024 ns to 2<sup>34</sup> ns (exact bounds of the scheduler's buckets, so the counts are
     * exact), and the last one ({@code +Inf}). 14 per source, where the scheduler has 98.
     */
    static final int[] HISTOGRAM_BUCKETS = histogramBuckets();

    private static int[] histogramBuckets() {
        List<Integer> buckets = new ArrayList<>();
        for (int b = 0; b < LatencyHistogram.BUCKETS - 1; b++) {
            long bound = LatencyHistogram.bucketUpperBoundNanos(b);
            if (Long.bitCount(bound) == 1 && Long.numberOfTrailingZeros(bound) % 2 == 0) {
                buckets.add(b);
            }
        }
        buckets.add(LatencyHistogram.BUCKETS - 1);
        return buckets.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Far shorter than any scrape or publish interval, far longer than one scrape's reads. */
    static final Duration SNAPSHOT_MAX_AGE = Duration.ofMillis(100);

    private final GmpScheduler scheduler;
    private final Iterable<Tag> tags;
    private final SnapshotCache snapshots;
    private final LatencyWindow recentLatency = new LatencyWindow(System::nanoTime);

    /**
     * @param scheduler the scheduler to observe
     * @param tags      tags for every meter, besides {@code name=<scheduler name>}
     */
    public GmpSchedulerMetrics(GmpScheduler scheduler, Iterable<Tag> tags) {
        this(scheduler, tags, SNAPSHOT_MAX_AGE);
    }

    /** {@code snapshotMaxAge} zero: every meter read takes a snapshot (tests). */
    GmpSchedulerMetrics(GmpScheduler scheduler, Iterable<Tag> tags, Duration snapshotMaxAge) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        String skew = versionSkew(loomGmpVersion(GmpSchedulerMetrics.class.getPackage()),
                loomGmpVersion(GmpScheduler.class.getPackage()));
        if (skew != null) {
            throw new IllegalStateException(skew);
        }
        this.tags = Tags.concat(Objects.requireNonNull(tags, "tags"), "name", scheduler.name());
        this.snapshots = new SnapshotCache(snapshotMaxAge.toNanos(), System::nanoTime);
    }

    /**
     * The {@code Implementation-Version} of the jar {@code pkg} came from, if that jar's
     * {@code Implementation-Title} says it is loom-gmp's; else null (a directory, an application's
     * uber-jar), which cannot be told apart.
     */
    static String loomGmpVersion(Package pkg) {
        String title = pkg.getImplementationTitle();
        return title != null && title.startsWith("loom-gmp") ? pkg.getImplementationVersion() : null;
    }

    /**
     * Why this binder cannot observe that scheduler, or null: the loom-gmp versions of the two
     * jars ({@link #loomGmpVersion}; null where unknown) differ. A binder reads the scheduler's snapshot method by method, so one built
     * against another version would fail later, in a gauge, with a {@code NoSuchMethodError}.
     */
    static String versionSkew(String metricsVersion, String schedulerVersion) {
        if (metricsVersion == null || schedulerVersion == null || metricsVersion.equals(schedulerVersion)) {
            return null;
        }
        return "loom-gmp: io.loomgmp:metrics " + metricsVersion + " cannot observe the loom-gmp " + schedulerVersion
                + " scheduler (under the agent, the agent's version): keep every io.loomgmp artifact at the agent's version";
    }

    /**
     * Binds the meters of {@code scheduler} to {@code registry}.
     *
     * @return {@code scheduler}, as {@code ExecutorServiceMetrics.monitor} returns its executor
     */
    public static GmpScheduler monitor(MeterRegistry registry, GmpScheduler scheduler, Iterable<Tag> tags) {
        new GmpSchedulerMetrics(scheduler, tags).bindTo(registry);
        return scheduler;
    }

    /** See {@link #monitor(MeterRegistry, GmpScheduler, Iterable)}. */
    public static GmpScheduler monitor(MeterRegistry registry, GmpScheduler scheduler, Tag... tags) {
        return monitor(registry, scheduler, Tags.of(tags));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("loomgmp.procs", scheduler, GmpScheduler::procs)
                .tags(tags).description("Ps: how many tasks run at once")
                .register(registry);
        gauge(registry, "loomgmp.procs.idle", null, "Ps on the idle list", Tags.empty(),
                SchedulerSnapshot::idleProcs);

        gauge(registry, "loomgmp.carriers", BaseUnits.THREADS,
                "Carriers holding a P, neither spinning nor parked (running tasks, or in transit)",
                Tags.of("state", "running"), SchedulerSnapshot::runningCarriers);
        gauge(registry, "loomgmp.carriers", BaseUnits.THREADS, "Carriers searching for work",
                Tags.of("state", "spinning"), SchedulerSnapshot::spinningCarriers);
        gauge(registry, "loomgmp.carriers", BaseUnits.THREADS, "Carriers parked on the idle list",
                Tags.of("state", "idle"), SchedulerSnapshot::idleCarriers);
        gauge(registry, "loomgmp.carriers", BaseUnits.THREADS,
                "Carriers still in a task whose P sysmon handed to another carrier",
                Tags.of("state", "blocked"), SchedulerSnapshot::blockedCarriers);
        Gauge.builder("loomgmp.carriers.max", scheduler, GmpScheduler::maxCarriers)
                .tags(tags).description("Upper bound on carrier threads").baseUnit(BaseUnits.THREADS)
                .register(registry);

        gauge(registry, "loomgmp.queue.global", BaseUnits.TASKS, "Tasks on the global queue", Tags.empty(),
                SchedulerSnapshot::globalQueueLength);
        // One gauge per P there is at binding; a P retired since (GmpScheduler.setProcs) reads 0,
        // and Ps added since have no gauge of their own (the global gauges still count them).
        for (int i = 0; i < scheduler.procs(); i++) {
            int proc = i;
            gauge(registry, "loomgmp.queue.local", BaseUnits.TASKS,
                    "Tasks queued on the P, runnext included", Tags.of("proc", String.valueOf(proc)),
                    s -> proc < s.processors().size() ? s.processors().get(proc).runnable() : 0);
        }

        counter(registry, "loomgmp.tasks.run", BaseUnits.TASKS, "Tasks run, over all Ps",
                SchedulerSnapshot::tasksRun);
        counter(registry, "loomgmp.runnext.hits", BaseUnits.TASKS, "Tasks taken from runnext (LIFO hand-offs)",
                SchedulerSnapshot::runnextHits);
        counter(registry, "loomgmp.local.pops", BaseUnits.TASKS, "Tasks taken from local rings",
                SchedulerSnapshot::localPops);
        counter(registry, "loomgmp.global.grabs", BaseUnits.TASKS,
                "Tasks taken from the global queue in batches, when the local queue was empty",
                SchedulerSnapshot::globalGrabs);
        counter(registry, "loomgmp.fairness.grabs", BaseUnits.TASKS,
                "Tasks taken from the global queue on the fairness tick", SchedulerSnapshot::fairnessTickGrabs);
        counter(registry, "loomgmp.steals", null, "Successful steals", SchedulerSnapshot::steals);
        counter(registry, "loomgmp.steals.tasks", BaseUnits.TASKS, "Tasks moved by steals",
                SchedulerSnapshot::stolenTasks);
        counter(registry, "loomgmp.overflows", null,
                "Times a full local ring moved half of itself to the global queue", SchedulerSnapshot::overflows);
        counter(registry, "loomgmp.carrier.parks", null, "Times a carrier parked on the idle list",
                SchedulerSnapshot::parks);
        counter(registry, "loomgmp.carrier.spins", null, "Times a carrier started spinning (searching for work)",
                SchedulerSnapshot::spins);
        counter(registry, "loomgmp.preemptions", null,
                "Preemption requests: times sysmon asked a P's running task to give the P up",
                SchedulerSnapshot::preemptRequests);
        counter(registry, "loomgmp.handoffs", null,
                "Times sysmon took a P from a carrier blocked in a task and handed it to another carrier",
                SchedulerSnapshot::handoffs);
        gauge(registry, "loomgmp.timers.pending", null,
                "Timers waiting in the Ps' heaps: sleeping virtual threads and pending timeouts", Tags.empty(),
                SchedulerSnapshot::pendingTimers);
        counter(registry, "loomgmp.timers.fired", null, "Timers run: sleeps and timeouts that expired",
                SchedulerSnapshot::timersFired);
        counter(registry, "loomgmp.failures", null,
                "Failures inside the scheduler it recovered from (see SchedulerFailure)",
                SchedulerSnapshot::failures);

        bindSchedLatency(registry);
    }

    /** The {@code loomgmp.sched.latency*} meters; see the class comment for why these types. */
    private void bindSchedLatency(MeterRegistry registry) {
        SnapshotCache cache = snapshots;
        LatencyWindow recent = recentLatency;
        for (String source : LatencyTotals.SOURCES) {
            FunctionTimer.builder("loomgmp.sched.latency", scheduler,
                            s -> cache.of(s).latency().source(source).count(),
                            s -> cache.of(s).latency().source(source).totalNanos(), TimeUnit.NANOSECONDS)
                    .tags(tags).tag("source", source)
                    .description("Sampled tasks' wait, runnable, for a carrier (scheduling latency), by where they waited")
                    .register(registry);
            for (int bucket : HISTOGRAM_BUCKETS) {
                boolean inf = bucket == LatencyHistogram.BUCKETS - 1;
                FunctionCounter.builder("loomgmp.sched.latency.histogram", scheduler,
                                s -> countUpTo(cache.of(s).latency().source(source), bucket))
                        .tags(tags).tag("source", source)
                        .tag("le", inf ? "+Inf" : seconds(LatencyHistogram.bucketUpperBoundNanos(bucket)))
                        .description("Sampled tasks that waited for a carrier at most le seconds (cumulative buckets)")
                        .register(registry);
            }
        }
        List<String> sourcesAndAll = new ArrayList<>(LatencyTotals.SOURCES);
        sourcesAndAll.add("all");
        for (String source : sourcesAndAll) {
            for (double phi : PERCENTILES) {
                Gauge.builder("loomgmp.sched.latency.percentile", scheduler,
                                s -> seconds(recent.of(cache.of(s).latency()), source, w -> w.percentileNanos(phi)))
                        .tags(tags).tag("source", source).tag("phi", String.valueOf(phi))
                        .description("Scheduling latency percentile over the last 2 minutes (an upper bound)")
                        .baseUnit("seconds")
                        .register(registry);
            }
            Gauge.builder("loomgmp.sched.latency.max", scheduler,
                            s -> seconds(recent.of(cache.of(s).latency()), source, LatencyHistogram::maxNanos))
                    .tags(tags).tag("source", source)
                    .description("Longest scheduling latency over the last 2 minutes (an upper bound)")
                    .baseUnit("seconds")
                    .register(registry);
        }
    }

    /** {@code waits}' samples that waited at most the upper bound of {@code bucket}: the buckets up to it. */
    private static double countUpTo(LatencyHistogram waits, int bucket) {
        long count = 0;
        for (int b = 0; b <= bucket; b++) {
            count += waits.bucketCount(b);
        }
        return count;
    }

    /** One figure of {@code source} (or {@code all}), in seconds. */
    private static double seconds(LatencyTotals latency, String source, ToLongFunction<LatencyHistogram> nanos) {
        LatencyHistogram waits = source.equals("all") ? latency.all() : latency.source(source);
        return nanos.applyAsLong(waits) / 1e9;
    }

    /** An exact decimal: 1024 ns is {@code 0.000001024}. */
    static String seconds(long nanos) {
        return BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString();
    }

    /**
     * A gauge on one figure of the cached snapshot. The scheduler is the gauge's (weakly held)
     * object; the function holds only the cache, which holds no scheduler.
     */
    private void gauge(MeterRegistry registry, String name, String baseUnit, String description, Tags extraTags,
                       ToDoubleFunction<SchedulerSnapshot> figure) {
        SnapshotCache cache = snapshots;
        Gauge.builder(name, scheduler, s -> figure.applyAsDouble(cache.of(s)))
                .tags(tags).tags(extraTags).description(description).baseUnit(baseUnit)
                .register(registry);
    }

    /** A function counter on one cumulative figure of the cached snapshot; held as {@link #gauge} is. */
    private void counter(MeterRegistry registry, String name, String baseUnit, String description,
                         ToDoubleFunction<SchedulerSnapshot> figure) {
        SnapshotCache cache = snapshots;
        FunctionCounter.builder(name, scheduler, s -> figure.applyAsDouble(cache.of(s)))
                .tags(tags).description(description).baseUnit(baseUnit)
                .register(registry);
    }
}
