package io.loomgmp.metrics;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.LatencyHistogram;
import io.loomgmp.dispatcher.LatencyTotals;
import io.loomgmp.dispatcher.SchedulerMetric;
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
 *   <tr><td>one per {@link SchedulerMetric} with a {@link SchedulerMetric#meterName() meter name}</td>
 *       <td>gauge or counter ({@link SchedulerMetric#kind()})</td><td>{@link SchedulerMetric#baseUnit()}</td>
 *       <td>{@link SchedulerMetric#meterTagKey()} (state=running|spinning|idle|blocked for loomgmp.carriers)</td>
 *       <td>{@link SchedulerSnapshot#get(SchedulerMetric)}</td></tr>
 *   <tr><td>loomgmp.carriers.max</td><td>gauge</td><td>threads</td><td></td><td>(maxCarriers)</td></tr>
 *   <tr><td>loomgmp.queue.local</td><td>gauge</td><td>tasks</td><td>proc=0..procs-1</td>
 *       <td>processors().get(proc).runnable(): ring plus runnext</td></tr>
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
        for (SchedulerMetric metric : SchedulerMetric.values()) {
            if (metric.meterName() != null) {
                bind(registry, metric);
            }
        }
        Gauge.builder("loomgmp.carriers.max", scheduler, GmpScheduler::maxCarriers)
                .tags(tags).description("Upper bound on carrier threads").baseUnit(BaseUnits.THREADS)
                .register(registry);
        // One gauge per P there is at binding; a P retired since (GmpScheduler.setProcs) reads 0,
        // and Ps added since have no gauge of their own (the global gauges still count them).
        for (int i = 0; i < scheduler.procs(); i++) {
            int proc = i;
            gauge(registry, "loomgmp.queue.local", BaseUnits.TASKS,
                    "Tasks queued on the P, runnext included", Tags.of("proc", String.valueOf(proc)),
                    s -> proc < s.processors().size() ? s.processors().get(proc).runnable() : 0);
        }
        bindSchedLatency(registry);
    }

    /**
     * The meter of one figure, as the enum describes it: a gauge for a level, a function counter
     * for a cumulative count, both reading the cached snapshot.
     */
    private void bind(MeterRegistry registry, SchedulerMetric metric) {
        Tags extraTags = metric.meterTagKey() == null ? Tags.empty() : Tags.of(metric.meterTagKey(), metric.meterTagValue());
        ToDoubleFunction<SchedulerSnapshot> figure = s -> s.get(metric);
        switch (metric.kind()) {
            case GAUGE -> gauge(registry, metric.meterName(), metric.baseUnit(), metric.description(), extraTags, figure);
            case COUNTER -> counter(registry, metric.meterName(), metric.baseUnit(), metric.description(), extraTags,
                    figure);
        }
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
    private void counter(MeterRegistry registry, String name, String baseUnit, String description, Tags extraTags,
                         ToDoubleFunction<SchedulerSnapshot> figure) {
        SnapshotCache cache = snapshots;
        FunctionCounter.builder(name, scheduler, s -> figure.applyAsDouble(cache.of(s)))
                .tags(tags).tags(extraTags).description(description).baseUnit(baseUnit)
                .register(registry);
    }
}
