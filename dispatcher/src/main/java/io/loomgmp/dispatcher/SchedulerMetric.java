package io.loomgmp.dispatcher;

import java.util.Locale;

/**
 * The figures of a {@link SchedulerSnapshot}, as data: each constant says how the scheduler reads
 * it and what it is called on every surface that publishes it, so that each surface loops over
 * this enum instead of naming each figure.
 * <ul>
 *   <li>the snapshot: {@link SchedulerSnapshot#get(SchedulerMetric)}, and for counters its
 *       {@code toString} ({@link #figureName()});</li>
 *   <li>the MXBean ({@link GmpSchedulerMXBean}): a read-only attribute named
 *       {@link #attributeName()}, an {@code int} for a gauge and a {@code long} for a counter;</li>
 *   <li>Micrometer ({@code io.loomgmp.metrics.GmpSchedulerMetrics}): a {@code Gauge} or a
 *       {@code FunctionCounter} named {@link #meterName()}, with {@link #meterTagKey()} and
 *       {@link #baseUnit()} if any, described by {@link #description()};</li>
 *   <li>the schedtrace line ({@link SchedulerSnapshot#schedtraceLine(long)}): the figures with a
 *       {@link #schedtraceKey()}, in this enum's order, as Go's {@code GODEBUG=schedtrace} names
 *       them;</li>
 *   <li>the table of figures in {@code docs/observability.md}, which a test renders from this
 *       enum.</li>
 * </ul>
 * A new figure is a new constant here (and the code that counts it); nothing else names it.
 * The constants' order is part of the schedtrace line's format and of the snapshot's dump: add a
 * counter at the end.
 */
public enum SchedulerMetric {
    PROCS(Kind.GAUGE, "loomgmp.procs", null, null, null, "gomaxprocs",
            "Ps: how many tasks run at once", r -> r.active()),
    IDLE_PROCS(Kind.GAUGE, "loomgmp.procs.idle", null, null, null, "idleprocs",
            "Ps on the idle list", r -> Math.min(r.active(), r.s().idle.idleProcs())),
    CARRIERS(Kind.GAUGE, null, null, null, null, "threads",
            "Carrier threads alive", r -> r.carriers().all()),
    RUNNING_CARRIERS(Kind.GAUGE, "loomgmp.carriers", "state", "running", Units.THREADS, null,
            "Carriers holding a P, neither spinning nor parked (running tasks, or in transit)",
            r -> r.carriers().running()),
    SPINNING_CARRIERS(Kind.GAUGE, "loomgmp.carriers", "state", "spinning", Units.THREADS, "spinningthreads",
            "Carriers searching for work", r -> r.carriers().spinning()),
    IDLE_CARRIERS(Kind.GAUGE, "loomgmp.carriers", "state", "idle", Units.THREADS, "idlethreads",
            "Carriers parked on the idle list", r -> r.carriers().idle()),
    BLOCKED_CARRIERS(Kind.GAUGE, "loomgmp.carriers", "state", "blocked", Units.THREADS, null,
            "Carriers still in a task whose P sysmon handed to another carrier", r -> r.carriers().blocked()),
    GLOBAL_QUEUE_LENGTH(Kind.GAUGE, "loomgmp.queue.global", null, null, Units.TASKS, "runqueue",
            "Tasks on the global queue", r -> r.s().global.size()),
    PENDING_TIMERS(Kind.GAUGE, "loomgmp.timers.pending", null, null, null, null,
            "Timers waiting in the Ps' heaps: sleeping virtual threads and pending timeouts",
            r -> r.sumOverActivePs(SchedulerSnapshot.ProcessorSnapshot::pendingTimers)),

    TASKS_RUN(Kind.COUNTER, "loomgmp.tasks.run", null, null, Units.TASKS, null,
            "Tasks run, over all Ps", r -> r.total(Counter.TASKS_RUN)),
    RUNNEXT_HITS(Kind.COUNTER, "loomgmp.runnext.hits", null, null, Units.TASKS, null,
            "Tasks taken from runnext (LIFO hand-offs)", r -> r.total(Counter.RUNNEXT_HITS)),
    LOCAL_POPS(Kind.COUNTER, "loomgmp.local.pops", null, null, Units.TASKS, null,
            "Tasks taken from local rings", r -> r.total(Counter.LOCAL_POPS)),
    GLOBAL_GRABS(Kind.COUNTER, "loomgmp.global.grabs", null, null, Units.TASKS, null,
            "Tasks taken from the global queue in batches, when the local queue was empty",
            r -> r.total(Counter.GLOBAL_GRABS)),
    FAIRNESS_TICK_GRABS(Kind.COUNTER, "loomgmp.fairness.grabs", null, null, Units.TASKS, null,
            "Tasks taken from the global queue while local work waited, on the fairness tick, after "
                    + "200 µs or after a yield (a full ring's overflow taken so counts whole)",
            r -> r.total(Counter.FAIRNESS_TICK_GRABS)),
    STEALS(Kind.COUNTER, "loomgmp.steals", null, null, null, null,
            "Successful steals", r -> r.total(Counter.STEALS)),
    STOLEN_TASKS(Kind.COUNTER, "loomgmp.steals.tasks", null, null, Units.TASKS, null,
            "Tasks moved by steals", r -> r.total(Counter.STOLEN_TASKS)),
    OVERFLOWS(Kind.COUNTER, "loomgmp.overflows", null, null, null, null,
            "Times a full local ring moved half of itself to the global queue", r -> r.total(Counter.OVERFLOWS)),
    PARKS(Kind.COUNTER, "loomgmp.carrier.parks", null, null, null, null,
            "Times a carrier parked on the idle list", r -> r.s().parking.parks.sum()),
    SPINS(Kind.COUNTER, "loomgmp.carrier.spins", null, null, null, null,
            "Times a carrier started spinning (searching for work)", r -> r.total(Counter.SPINS)),
    PREEMPT_REQUESTS(Kind.COUNTER, "loomgmp.preemptions", null, null, null, null,
            "Preemption requests: times sysmon asked a P's running task to give the P up",
            r -> r.s().sysmon.retake.preemptRequests.sum()),
    HANDOFFS(Kind.COUNTER, "loomgmp.handoffs", null, null, null, null,
            "Times sysmon took a P from a carrier blocked in a task and handed it to another carrier",
            r -> r.s().handOff.handoffs.sum()),
    TIMERS_FIRED(Kind.COUNTER, "loomgmp.timers.fired", null, null, null, null,
            "Timers run: sleeps and timeouts that expired", r -> r.sumOverEveryP(p -> p.timers.fired())),
    FAILURES(Kind.COUNTER, "loomgmp.failures", null, null, null, null,
            "Failures inside the scheduler it recovered from (see SchedulerFailure)", r -> r.s().failures.count());

    /** Whether a figure is a level now or a count since the scheduler started. */
    public enum Kind {
        /** A level now: it goes up and down ({@code int} in the MXBean, a Micrometer {@code Gauge}). */
        GAUGE,
        /**
         * A count since the scheduler started, over every P it ever made: it never goes down, so
         * two snapshots give a rate ({@code long} in the MXBean, a Micrometer {@code FunctionCounter}).
         */
        COUNTER
    }

    /** Micrometer's {@code BaseUnits} names, which the dispatcher does not depend on. */
    private static final class Units {
        static final String TASKS = "tasks";
        static final String THREADS = "threads";
    }

    /** How the scheduler reads a figure, from the reads one snapshot shares ({@link Snapshots.Reading}). */
    @FunctionalInterface
    interface Reader {
        long read(Snapshots.Reading reading);
    }

    private final Kind kind;
    private final String meterName;
    private final String meterTagKey;
    private final String meterTagValue;
    private final String baseUnit;
    private final String schedtraceKey;
    private final String description;
    private final Reader reader;
    private final String figureName;

    SchedulerMetric(Kind kind, String meterName, String meterTagKey, String meterTagValue, String baseUnit,
                    String schedtraceKey, String description, Reader reader) {
        this.kind = kind;
        this.meterName = meterName;
        this.meterTagKey = meterTagKey;
        this.meterTagValue = meterTagValue;
        this.baseUnit = baseUnit;
        this.schedtraceKey = schedtraceKey;
        this.description = description;
        this.reader = reader;
        this.figureName = camelCase(name());
    }

    /** {@code TASKS_RUN} → {@code tasksRun}. */
    private static String camelCase(String constant) {
        StringBuilder out = new StringBuilder();
        for (String word : constant.toLowerCase(Locale.ROOT).split("_")) {
            out.append(out.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
        }
        return out.toString();
    }

    /** A level (gauge) or a cumulative count (counter). */
    public Kind kind() {
        return kind;
    }

    /**
     * The figure's name in the snapshot: its typed accessor, if it has one
     * ({@code SchedulerSnapshot.tasksRun()}), and its key in the snapshot's dump; e.g.
     * {@code tasksRun}.
     */
    public String figureName() {
        return figureName;
    }

    /** The MXBean attribute that publishes it, e.g. {@code TasksRun}. */
    public String attributeName() {
        return Character.toUpperCase(figureName.charAt(0)) + figureName.substring(1);
    }

    /**
     * The Micrometer meter that publishes it, e.g. {@code loomgmp.tasks.run}; null for a figure
     * that has none. Several figures may share a name with different {@link #meterTagValue()}s.
     */
    public String meterName() {
        return meterName;
    }

    /** The tag that tells this figure's meter from others of the same name, e.g. {@code state}; null if none. */
    public String meterTagKey() {
        return meterTagKey;
    }

    /** That tag's value, e.g. {@code running}; null if none. */
    public String meterTagValue() {
        return meterTagValue;
    }

    /**
     * The meter's base unit as Micrometer's {@code BaseUnits} name it ({@code tasks},
     * {@code threads}); null for Ps and for counts of events such as steals, as Micrometer's own
     * binders have none there.
     */
    public String baseUnit() {
        return baseUnit;
    }

    /** Its key in Go's schedtrace line, e.g. {@code gomaxprocs}; null when the line does not show it. */
    public String schedtraceKey() {
        return schedtraceKey;
    }

    /** What it counts, one sentence: the meter's and the attribute's description. */
    public String description() {
        return description;
    }

    /** Any thread, no lock: reads the figure for the snapshot being taken; see {@link Snapshots#of}. */
    long read(Snapshots.Reading reading) {
        return reader.read(reading);
    }
}
