package io.loomgmp.metrics;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.Placement;
import io.loomgmp.dispatcher.LatencyTotals;
import io.loomgmp.dispatcher.SchedulerMetric;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The meters on a real scheduler running real tasks, read through a SimpleMeterRegistry. */
class GmpSchedulerMetricsTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final List<String> COUNTERS = List.of("loomgmp.tasks.run", "loomgmp.runnext.hits",
            "loomgmp.local.pops", "loomgmp.global.grabs", "loomgmp.fairness.grabs", "loomgmp.steals",
            "loomgmp.steals.tasks", "loomgmp.overflows", "loomgmp.carrier.parks", "loomgmp.carrier.spins",
            "loomgmp.preemptions", "loomgmp.handoffs", "loomgmp.timers.fired", "loomgmp.failures");

    private static final List<String> LATENCY = List.of("loomgmp.sched.latency", "loomgmp.sched.latency.histogram",
            "loomgmp.sched.latency.percentile", "loomgmp.sched.latency.max");

    /** Every meter read takes a fresh snapshot, so a test sees the effect of what it just did. */
    private static MeterRegistry bind(GmpScheduler scheduler, Tag... tags) {
        MeterRegistry registry = new SimpleMeterRegistry();
        new GmpSchedulerMetrics(scheduler, Tags.of(tags), Duration.ZERO).bindTo(registry);
        return registry;
    }

    private static double gauge(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    private static double count(MeterRegistry registry, String name) {
        return registry.get(name).functionCounter().count();
    }

    @Test
    void aBinderOfAnotherVersionThanTheSchedulerSaysSoAndBindsNothing() {
        assertNull(GmpSchedulerMetrics.versionSkew("0.2.0", "0.2.0"));
        assertNull(GmpSchedulerMetrics.versionSkew(null, "0.2.0"), "classes from a directory: no version to compare");
        assertNull(GmpSchedulerMetrics.versionSkew("0.2.0", null));
        assertEquals("loom-gmp: io.loomgmp:metrics 0.3.0 cannot observe the loom-gmp 0.2.0 scheduler (under the agent,"
                + " the agent's version): keep every io.loomgmp artifact at the agent's version",
                GmpSchedulerMetrics.versionSkew("0.3.0", "0.2.0"));
    }

    @Test
    void everyMeterHasItsNameTagsUnitAndDescription() {
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(2).maxCarriers(9).name("orders").build()) {
            MeterRegistry registry = new SimpleMeterRegistry();
            assertSame(scheduler, GmpSchedulerMetrics.monitor(registry, scheduler, Tag.of("app", "shop")));

            for (Meter meter : registry.getMeters()) {
                Meter.Id id = meter.getId();
                assertTrue(id.getName().startsWith("loomgmp."), id.toString());
                assertEquals("orders", id.getTag("name"), id.toString());
                assertEquals("shop", id.getTag("app"), id.toString());
                assertNotNull(id.getDescription(), id.toString());
            }
            Set<String> names = registry.getMeters().stream().map(m -> m.getId().getName()).collect(Collectors.toSet());
            // The meters there were before the figures became an enum keep their names; a figure
            // added to SchedulerMetric adds its own.
            Set<String> expected = new java.util.HashSet<>(COUNTERS);
            expected.addAll(List.of("loomgmp.procs", "loomgmp.procs.idle", "loomgmp.carriers", "loomgmp.carriers.max",
                    "loomgmp.queue.global", "loomgmp.queue.local", "loomgmp.timers.pending"));
            expected.addAll(LATENCY);
            Stream.of(SchedulerMetric.values()).map(SchedulerMetric::meterName).filter(Objects::nonNull).forEach(expected::add);
            assertEquals(expected, names);
            // One per metered figure (22 when loomgmp.carriers had 4 states and there were 14
            // counters), the carrier bound and 2 Ps; then the latency: 6 sources × (1 timer + 14
            // buckets), and 7 (the sources and all) × (2 percentiles + max)
            long metered = Stream.of(SchedulerMetric.values()).filter(m -> m.meterName() != null).count();
            assertTrue(metered >= 22, "no figure's meter was lost: " + metered);
            assertEquals(metered + 1 + 2 + 6 * 15 + 7 * 3, registry.getMeters().size());

            Gauge procs = registry.get("loomgmp.procs").gauge();
            assertEquals(2, procs.value());
            assertNull(procs.getId().getBaseUnit(), "Ps have no base unit, as system.cpu.count");
            assertEquals(9, registry.get("loomgmp.carriers.max").gauge().value());
            assertEquals("threads", registry.get("loomgmp.carriers.max").gauge().getId().getBaseUnit());
            for (String state : List.of("running", "spinning", "idle", "blocked")) {
                assertEquals("threads", registry.get("loomgmp.carriers").tag("state", state).gauge().getId().getBaseUnit());
            }
            assertEquals("tasks", registry.get("loomgmp.queue.global").gauge().getId().getBaseUnit());
            for (String proc : List.of("0", "1")) {
                assertEquals("tasks", registry.get("loomgmp.queue.local").tag("proc", proc).gauge().getId().getBaseUnit());
            }
            for (String source : LatencyTotals.SOURCES) {
                FunctionTimer timer = registry.get("loomgmp.sched.latency").tag("source", source).functionTimer();
                assertEquals(0, timer.count(), "nothing run yet: " + source);
                List<String> les = registry.get("loomgmp.sched.latency.histogram").tag("source", source)
                        .functionCounters().stream().map(c -> c.getId().getTag("le")).sorted().toList();
                assertEquals(List.of("+Inf", "0.000001024", "0.000004096", "0.000016384", "0.000065536", "0.000262144",
                        "0.001048576", "0.004194304", "0.016777216", "0.067108864", "0.268435456", "1.073741824",
                        "17.179869184", "4.294967296"), les, "powers of 4 from 1,024 ns to 2^34 ns, in seconds");
            }
            for (String source : List.of("all", "runnext", "timer")) {
                for (String phi : List.of("0.5", "0.99")) {
                    Gauge percentile = registry.get("loomgmp.sched.latency.percentile").tags("source", source, "phi", phi)
                            .gauge();
                    assertEquals("seconds", percentile.getId().getBaseUnit());
                    assertEquals(0, percentile.value());
                }
                assertEquals("seconds", registry.get("loomgmp.sched.latency.max").tag("source", source).gauge()
                        .getId().getBaseUnit());
            }
            for (String name : COUNTERS) {
                FunctionCounter counter = registry.get(name).functionCounter();
                String unit = counter.getId().getBaseUnit();
                boolean countsTasks = name.equals("loomgmp.steals.tasks") || !name.matches(
                        "loomgmp\\.(steals|overflows|carrier\\.parks|carrier\\.spins|preemptions|handoffs|timers\\.fired|failures)");
                assertEquals(countsTasks ? "tasks" : null, unit, name);
            }
        }
    }

    @Test
    void eachMetricIsTheMeterItsEnumConstantDescribes() throws InterruptedException {
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(2).name("enum").build()) {
            MeterRegistry registry = bind(scheduler);
            CountDownLatch done = new CountDownLatch(20);
            for (int i = 0; i < 20; i++) {
                scheduler.execute(done::countDown);
            }
            await(done, scheduler, "the tasks");
            // Quiescent: the figures stand still while the meters are read.
            long deadline = System.nanoTime() + BOUND.toNanos();
            SchedulerSnapshot snapshot = scheduler.snapshot();
            while (snapshot.idleProcs() != 2 || snapshot.idleCarriers() != snapshot.carriers()) {
                assertTrue(System.nanoTime() - deadline < 0, "every P and carrier idle\n" + snapshot);
                Thread.sleep(1);
                snapshot = scheduler.snapshot();
            }
            for (SchedulerMetric metric : SchedulerMetric.values()) {
                if (metric.meterName() == null) {
                    continue;
                }
                String[] tag = metric.meterTagKey() == null ? new String[0]
                        : new String[] {metric.meterTagKey(), metric.meterTagValue()};
                Meter meter = registry.get(metric.meterName()).tags(tag).meter();
                assertEquals(metric.kind() == SchedulerMetric.Kind.GAUGE ? Meter.Type.GAUGE : Meter.Type.COUNTER,
                        meter.getId().getType(), metric.toString());
                assertEquals(metric.baseUnit(), meter.getId().getBaseUnit(), metric.toString());
                assertEquals(metric.description(), meter.getId().getDescription(), metric.toString());
                double value = metric.kind() == SchedulerMetric.Kind.GAUGE ? ((Gauge) meter).value()
                        : ((FunctionCounter) meter).count();
                // Quiescent, but a parked carrier may still time out and leave, and sysmon counts on.
                if (metric == SchedulerMetric.TASKS_RUN || metric == SchedulerMetric.PROCS
                        || metric == SchedulerMetric.GLOBAL_QUEUE_LENGTH || metric == SchedulerMetric.PENDING_TIMERS) {
                    assertEquals(snapshot.get(metric), value, metric.toString());
                }
            }
            assertEquals(20, count(registry, "loomgmp.tasks.run"));
        }
    }

    @Test
    void aRunnextChainMovesTasksRunAndRunnextHits() throws InterruptedException {
        int chain = 200;
        // One P: no thief can take a runnext task, so every link is a runnext hit.
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(1).name("chain").build()) {
            MeterRegistry registry = bind(scheduler);
            assertEquals(0, count(registry, "loomgmp.tasks.run"));

            CountDownLatch done = new CountDownLatch(1);
            scheduler.execute(() -> link(scheduler, chain, done));
            await(done, scheduler, "the runnext chain");

            assertEquals(chain + 1, count(registry, "loomgmp.tasks.run"), "the first task and its chain");
            assertEquals(chain, count(registry, "loomgmp.runnext.hits"));
            assertEquals(1, count(registry, "loomgmp.global.grabs") + count(registry, "loomgmp.fairness.grabs"),
                    "the first task came from outside, through the global queue");
            SchedulerSnapshot snapshot = scheduler.snapshot();
            assertEquals(snapshot.tasksRun(), count(registry, "loomgmp.tasks.run"));
            assertEquals(snapshot.runnextHits(), count(registry, "loomgmp.runnext.hits"));
        }
    }

    /** Hands the next link to runnext until {@code left} reaches 0. */
    private static void link(GmpScheduler scheduler, int left, CountDownLatch done) {
        if (left == 0) {
            done.countDown();
        } else {
            scheduler.submit(() -> link(scheduler, left - 1, done), Placement.RUNNEXT);
        }
    }

    @Test
    void localSubmissionsMoveLocalPops() throws InterruptedException {
        int fanOut = 100;
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(1).name("fan").build()) {
            MeterRegistry registry = bind(scheduler);
            CountDownLatch done = new CountDownLatch(fanOut);
            scheduler.execute(() -> {
                for (int i = 0; i < fanOut; i++) {
                    scheduler.execute(done::countDown); // from a carrier: the tail of its P's ring
                }
            });
            await(done, scheduler, "the fan-out");
            assertEquals(fanOut, count(registry, "loomgmp.local.pops"));
            assertEquals(fanOut + 1, count(registry, "loomgmp.tasks.run"));
        }
    }

    @Test
    void gaugesShowTheQueuesWhileEveryPIsBusy() throws InterruptedException {
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(2).name("busy").build()) {
            MeterRegistry registry = bind(scheduler);
            assertEquals(2, gauge(registry, "loomgmp.procs.idle"), "a new scheduler's Ps are idle");

            // Two blockers hold both Ps. They spin rather than park: a parked carrier may have its
            // P handed to another carrier, which would run the queued tasks under the test.
            CountDownLatch bothRunning = new CountDownLatch(2);
            CountDownLatch queuedLocally = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(2 + 4 + 5);
            Release release = new Release();
            Runnable queued = done::countDown;
            scheduler.execute(() -> {
                bothRunning.countDown();
                release.spinUntil(() -> bothRunning.getCount() == 0);
                for (int i = 0; i < 3; i++) {
                    scheduler.execute(queued);
                }
                scheduler.submit(queued, Placement.RUNNEXT);
                queuedLocally.countDown();
                release.spinUntil(release::released);
                done.countDown();
            });
            scheduler.execute(() -> {
                bothRunning.countDown();
                release.spinUntil(release::released);
                done.countDown();
            });
            try {
                await(queuedLocally, scheduler, "both blockers running and 4 tasks queued on one P");
                for (int i = 0; i < 5; i++) {
                    scheduler.execute(queued); // from outside: the global queue
                }

                assertEquals(5, gauge(registry, "loomgmp.queue.global"), scheduler.snapshot().toString());
                double p0 = gauge(registry, "loomgmp.queue.local", "proc", "0");
                double p1 = gauge(registry, "loomgmp.queue.local", "proc", "1");
                assertEquals(4, p0 + p1, "3 in one P's ring and 1 in its runnext\n" + scheduler.snapshot());
                assertEquals(4, Math.max(p0, p1), "all on the blocker's P\n" + scheduler.snapshot());
                assertEquals(0, gauge(registry, "loomgmp.procs.idle"));
                assertEquals(2, gauge(registry, "loomgmp.carriers", "state", "running"), scheduler.snapshot().toString());
                assertEquals(0, gauge(registry, "loomgmp.carriers", "state", "blocked"));
            } finally {
                release.release();
            }
            await(done, scheduler, "the blockers and the queued tasks");
            assertEquals(0, gauge(registry, "loomgmp.queue.global"));
            assertEquals(0, gauge(registry, "loomgmp.queue.local", "proc", "0")
                    + gauge(registry, "loomgmp.queue.local", "proc", "1"));
            assertEquals(11, count(registry, "loomgmp.tasks.run"));
        }
    }

    /**
     * A hand-off that waits 100 ms in runnext behind its submitter (one P, no thief), timed: the
     * meters of source runnext show it, and those of source all include the submitter, which
     * came from outside.
     */
    @Test
    void theLatencyMetersShowAHandOffThatWaitedUnderRunnext() throws InterruptedException {
        Duration wait = Duration.ofMillis(100);
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).name("lat")
                .latencySample(1).build()) {
            MeterRegistry registry = bind(scheduler);
            CountDownLatch ran = new CountDownLatch(1);
            scheduler.execute(() -> {
                scheduler.submit(ran::countDown, Placement.RUNNEXT);
                long end = System.nanoTime() + wait.toNanos();
                while (System.nanoTime() - end < 0) {
                    Thread.onSpinWait(); // keep the P: the hand-off waits in runnext
                }
            });
            await(ran, scheduler, "the hand-off");

            FunctionTimer runnext = registry.get("loomgmp.sched.latency").tag("source", "runnext").functionTimer();
            assertEquals(1, runnext.count(), scheduler.snapshot().toString());
            assertTrue(runnext.totalTime(TimeUnit.SECONDS) >= 0.1, "waited 100 ms: " + runnext.totalTime(TimeUnit.SECONDS));
            assertEquals(TimeUnit.SECONDS, runnext.baseTimeUnit());
            assertEquals(1, registry.get("loomgmp.sched.latency").tag("source", "global").functionTimer().count(),
                    "the submitter, from outside");
            assertEquals(1, registry.get("loomgmp.sched.latency.histogram").tags("source", "runnext", "le", "+Inf")
                    .functionCounter().count());
            assertEquals(0, registry.get("loomgmp.sched.latency.histogram").tags("source", "runnext", "le", "0.067108864")
                    .functionCounter().count(), "not within 67 ms");
            assertTrue(gauge(registry, "loomgmp.sched.latency.percentile", "source", "runnext", "phi", "0.99") >= 0.1);
            assertTrue(gauge(registry, "loomgmp.sched.latency.percentile", "source", "all", "phi", "0.99") >= 0.1);
            assertTrue(gauge(registry, "loomgmp.sched.latency.max", "source", "all") >= 0.1);
            assertEquals(0, gauge(registry, "loomgmp.sched.latency.max", "source", "stolen"));
            assertEquals(scheduler.snapshot().latency().source("runnext").percentileNanos(0.99) / 1e9,
                    gauge(registry, "loomgmp.sched.latency.percentile", "source", "runnext", "phi", "0.99"),
                    "within the first 2 minutes the window is everything since the start");
        }
    }

    @Test
    void withSamplingOffTheLatencyMetersStayZero() throws InterruptedException {
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(1).name("lat-off").latencySample(0).build()) {
            MeterRegistry registry = bind(scheduler);
            CountDownLatch ran = new CountDownLatch(10);
            for (int i = 0; i < 10; i++) {
                scheduler.execute(ran::countDown);
            }
            await(ran, scheduler, "the tasks");
            for (FunctionTimer timer : registry.get("loomgmp.sched.latency").functionTimers()) {
                assertEquals(0, timer.count(), timer.getId().toString());
            }
            assertEquals(0, gauge(registry, "loomgmp.sched.latency.max", "source", "all"));
        }
    }

    /** Lets the blockers go; they also give up after BOUND, so a failing test cannot leave them spinning. */
    private static final class Release {
        private final long deadline = System.nanoTime() + BOUND.toNanos();
        private volatile boolean released;

        boolean released() {
            return released;
        }

        void release() {
            released = true;
        }

        void spinUntil(BooleanSupplier condition) {
            while (!condition.getAsBoolean() && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void theMetersDoNotKeepTheSchedulerAlive() throws InterruptedException {
        MeterRegistry registry = new SimpleMeterRegistry();
        bindClosedScheduler(registry);
        Gauge global = registry.get("loomgmp.queue.global").gauge();
        FunctionCounter tasksRun = registry.get("loomgmp.tasks.run").functionCounter();
        assertEquals(1, tasksRun.count());

        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!Double.isNaN(global.value())) {
            if (System.nanoTime() - deadline > 0) {
                fail("the scheduler was not collected within " + BOUND + ": a meter holds it strongly");
            }
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(1, tasksRun.count(), "a counter keeps its last value");
    }

    /** In its own frame, so that no local variable of the test holds the scheduler. */
    private static void bindClosedScheduler(MeterRegistry registry) throws InterruptedException {
        GmpScheduler scheduler = GmpScheduler.builder().procs(1).name("gone").build();
        new GmpSchedulerMetrics(scheduler, Tags.empty()).bindTo(registry);
        CountDownLatch ran = new CountDownLatch(1);
        scheduler.execute(ran::countDown);
        await(ran, scheduler, "the task");
        scheduler.close();
        assertFalse(Double.isNaN(registry.get("loomgmp.queue.global").gauge().value()));
    }

    private static void await(CountDownLatch latch, GmpScheduler scheduler, String what) throws InterruptedException {
        if (!latch.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            fail(what + " did not happen within " + BOUND + "\n" + scheduler.snapshot());
        }
    }
}
