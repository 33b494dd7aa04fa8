package io.loomgmp.metrics;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for a {@link GmpScheduler}, in the manner of Micrometer's
 * {@code ExecutorServiceMetrics}: gauges for its Ps, carriers and queues, function counters for
 * its cumulative counters, every meter tagged {@code name=<scheduler name>} plus the given tags.
 * <pre>{@code
 * GmpSchedulerMetrics.monitor(registry, Gmp.scheduler().orElseThrow(), Tags.empty());
 * }</pre>
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
 * </table>
 * Base units follow Micrometer's binders: {@code tasks} and {@code threads} where a meter counts
 * those; none for Ps (as {@code system.cpu.count}) and for counts of events such as steals (as
 * {@code executor.steals}). The local queues are one gauge per P rather than a sum, because a
 * meter name has one set of tag keys; a backend sums them.
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
    /** Far shorter than any scrape or publish interval, far longer than one scrape's reads. */
    static final Duration SNAPSHOT_MAX_AGE = Duration.ofMillis(100);

    private final GmpScheduler scheduler;
    private final Iterable<Tag> tags;
    private final SnapshotCache snapshots;

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
        this.tags = Tags.concat(Objects.requireNonNull(tags, "tags"), "name", scheduler.name());
        this.snapshots = new SnapshotCache(snapshotMaxAge.toNanos(), System::nanoTime);
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
        for (int i = 0; i < scheduler.procs(); i++) { // procs is fixed when the scheduler is built
            int proc = i;
            gauge(registry, "loomgmp.queue.local", BaseUnits.TASKS,
                    "Tasks queued on the P, runnext included", Tags.of("proc", String.valueOf(proc)),
                    s -> s.processors().get(proc).runnable());
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
