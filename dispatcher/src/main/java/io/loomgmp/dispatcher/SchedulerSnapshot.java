package io.loomgmp.dispatcher;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * An immutable view of a {@link GmpScheduler}: its Ps, carriers, queues, cumulative counters and
 * scheduling latencies ({@link GmpScheduler#snapshot()}). Taken without locks, so the figures are
 * each exact at some moment but not all at the same one. The counters only grow, over the
 * scheduler's life and every P it ever made, so two snapshots give rates.
 *
 * <p>The numeric figures are {@link SchedulerMetric}s, read with {@link #get(SchedulerMetric)};
 * the typed accessors ({@link #tasksRun()}, ...) are kept for the figures that had them. Only the
 * scheduler makes snapshots (there is no public constructor), so that a figure added later is
 * only a new {@link SchedulerMetric} constant.
 */
public final class SchedulerSnapshot {
    private final String name;
    private final List<ProcessorSnapshot> processors;
    /** By {@link SchedulerMetric#ordinal()}. */
    private final long[] figures;
    private final boolean terminated;
    private final LatencyTotals latency;

    /** @param figures each {@link SchedulerMetric}'s value, by ordinal; this snapshot keeps the array */
    SchedulerSnapshot(String name, List<ProcessorSnapshot> processors, long[] figures, boolean terminated,
                      LatencyTotals latency) {
        if (figures.length != SchedulerMetric.values().length) {
            throw new IllegalArgumentException(figures.length + " figures for " + SchedulerMetric.values().length + " metrics");
        }
        this.name = Objects.requireNonNull(name, "name");
        this.processors = List.copyOf(processors);
        this.figures = figures;
        this.terminated = terminated;
        this.latency = Objects.requireNonNull(latency, "latency");
    }

    /**
     * One figure: a gauge's level when the snapshot was taken, or a counter's count since the
     * scheduler started (see {@link SchedulerMetric}). The typed accessors below read the same
     * values; a figure added later has only this one.
     */
    public long get(SchedulerMetric metric) {
        return figures[metric.ordinal()];
    }

    /**
     * The scheduler's name.
     */
    public String name() {
        return name;
    }

    /**
     * Number of Ps.
     */
    public int procs() {
        return (int) get(SchedulerMetric.PROCS);
    }

    /**
     * Ps on the idle list.
     */
    public int idleProcs() {
        return (int) get(SchedulerMetric.IDLE_PROCS);
    }

    /**
     * Carrier threads alive.
     */
    public int carriers() {
        return (int) get(SchedulerMetric.CARRIERS);
    }

    /**
     * Carriers holding a P, neither spinning nor parked (running tasks, or in transit)
     */
    public int runningCarriers() {
        return (int) get(SchedulerMetric.RUNNING_CARRIERS);
    }

    /**
     * Carriers searching for work.
     */
    public int spinningCarriers() {
        return (int) get(SchedulerMetric.SPINNING_CARRIERS);
    }

    /**
     * Carriers parked on the idle list.
     */
    public int idleCarriers() {
        return (int) get(SchedulerMetric.IDLE_CARRIERS);
    }

    /**
     * Carriers still in a task whose P sysmon handed to another carrier.
     */
    public int blockedCarriers() {
        return (int) get(SchedulerMetric.BLOCKED_CARRIERS);
    }

    /**
     * Tasks on the global queue.
     */
    public int globalQueueLength() {
        return (int) get(SchedulerMetric.GLOBAL_QUEUE_LENGTH);
    }

    /**
     * One entry per P, by id.
     */
    public List<ProcessorSnapshot> processors() {
        return processors;
    }

    /**
     * Tasks run, over all Ps.
     */
    public long tasksRun() {
        return get(SchedulerMetric.TASKS_RUN);
    }

    /**
     * Tasks taken from {@code runnext} (LIFO hand-offs)
     */
    public long runnextHits() {
        return get(SchedulerMetric.RUNNEXT_HITS);
    }

    /**
     * Tasks taken from local rings.
     */
    public long localPops() {
        return get(SchedulerMetric.LOCAL_POPS);
    }

    /**
     * Tasks taken from the global queue because the local ring was empty: batches of ready tasks
     * (Go's {@code globrunqget}) and yielded tasks one at a time.
     */
    public long globalGrabs() {
        return get(SchedulerMetric.GLOBAL_GRABS);
    }

    /**
     * Tasks taken from the global queue ahead of the local ring: on the fairness tick (every 61st
     * schedule, as in Go), and also whenever ready work had waited 200 µs since this P last took
     * any (the time bound that keeps outside work from waiting behind local work), and at the
     * schedule after a {@code Thread.yield()} that found ready work waiting. A full ring's
     * overflow taken so counts whole: its first task runs, the rest join the ring's tail.
     */
    public long fairnessTickGrabs() {
        return get(SchedulerMetric.FAIRNESS_TICK_GRABS);
    }

    /**
     * Successful steals.
     */
    public long steals() {
        return get(SchedulerMetric.STEALS);
    }

    /**
     * Tasks moved by steals.
     */
    public long stolenTasks() {
        return get(SchedulerMetric.STOLEN_TASKS);
    }

    /**
     * Times a full local ring moved half of itself to the global queue.
     */
    public long overflows() {
        return get(SchedulerMetric.OVERFLOWS);
    }

    /**
     * Times a carrier parked on the idle list.
     */
    public long parks() {
        return get(SchedulerMetric.PARKS);
    }

    /**
     * Times a carrier started spinning.
     */
    public long spins() {
        return get(SchedulerMetric.SPINS);
    }

    /**
     * Times sysmon asked a P's running task to give the P up.
     */
    public long preemptRequests() {
        return get(SchedulerMetric.PREEMPT_REQUESTS);
    }

    /**
     * Times sysmon took a P from a carrier blocked in a task and handed it to another carrier.
     */
    public long handoffs() {
        return get(SchedulerMetric.HANDOFFS);
    }

    /**
     * Timers run (a virtual thread's sleep or timeout that expired)
     */
    public long timersFired() {
        return get(SchedulerMetric.TIMERS_FIRED);
    }

    /**
     * Failures inside the scheduler itself (not in tasks) that it recovered from: carriers that
     * could not be started or that failed, sysmon rounds that failed, events that could not be
     * recorded (see {@link SchedulerFailure})
     */
    public long failures() {
        return get(SchedulerMetric.FAILURES);
    }

    /**
     * Whether the scheduler has terminated: closed, every task run, every carrier told to end.
     */
    public boolean terminated() {
        return terminated;
    }

    /**
     * Scheduling latency, cumulative: how long sampled tasks waited, runnable, for a carrier, in
     * all and by where they waited (see {@link LatencyTotals})
     */
    public LatencyTotals latency() {
        return latency;
    }

    /** One P, as the snapshot saw it. Only the scheduler makes them. */
    public static final class ProcessorSnapshot {
        private final int id;
        private final boolean idle;
        private final int localQueueLength;
        private final boolean runnextOccupied;
        private final long schedtick;
        private final long tasksRun;
        private final int pendingTimers;
        private final boolean preemptRequested;
        private final String running;
        private final long runningNanos;

        ProcessorSnapshot(int id, boolean idle, int localQueueLength, boolean runnextOccupied, long schedtick, long tasksRun, int pendingTimers, boolean preemptRequested, String running, long runningNanos) {
            this.id = id;
            this.idle = idle;
            this.localQueueLength = localQueueLength;
            this.runnextOccupied = runnextOccupied;
            this.schedtick = schedtick;
            this.tasksRun = tasksRun;
            this.pendingTimers = pendingTimers;
            this.preemptRequested = preemptRequested;
            this.running = running;
            this.runningNanos = runningNanos;
        }

        /**
         * The P's index, 0 to procs - 1.
         */
        public int id() {
            return id;
        }

        /**
         * Whether it is on the idle list (or being handed to a carrier)
         */
        public boolean idle() {
            return idle;
        }

        /**
         * Tasks in its ring, not counting runnext.
         */
        public int localQueueLength() {
            return localQueueLength;
        }

        /**
         * Whether its runnext slot holds a task.
         */
        public boolean runnextOccupied() {
            return runnextOccupied;
        }

        /**
         * Schedules that started a new time slice.
         */
        public long schedtick() {
            return schedtick;
        }

        /**
         * Tasks run on it.
         */
        public long tasksRun() {
            return tasksRun;
        }

        /**
         * Timers waiting in its heap, cancelled ones not counted.
         */
        public int pendingTimers() {
            return pendingTimers;
        }

        /**
         * Whether sysmon's request that its running task give it up is open.
         */
        public boolean preemptRequested() {
            return preemptRequested;
        }

        /**
         * The task it is running now, or null: {@code VT <id> <name>} for a virtual thread (no name
         * if it has none), else {@code task <class>}.
         */
        public String running() {
            return running;
        }

        /**
         * How long that task has been running, as sysmon saw it: from sysmon's first look at it, so
         * short by up to one look's interval (at most 10 ms while a P is busy); 0 if sysmon has not
         * looked at it yet; -1 when it runs no task, or sysmon is off.
         */
        public long runningNanos() {
            return runningNanos;
        }

        /** Queued tasks including runnext, as Go's schedtrace counts them. */
        public int runnable() {
            return localQueueLength + (runnextOccupied ? 1 : 0);
        }

        /**
         * {@code idle} (on the idle list, or being handed to a carrier), {@code running} (a
         * task), or {@code scheduling} (held by a carrier between tasks: finding the next one).
         */
        public String state() {
            return idle ? "idle" : running != null ? "running" : "scheduling";
        }
    }

    /** Ps with an open preemption request: 0 once every P is idle. */
    public int pendingPreemptRequests() {
        return (int) processors.stream().filter(ProcessorSnapshot::preemptRequested).count();
    }

    /** Timers waiting to fire, over all Ps (sleeping virtual threads, pending timeouts). */
    public int pendingTimers() {
        return (int) get(SchedulerMetric.PENDING_TIMERS);
    }

    /**
     * Go's {@code GODEBUG=schedtrace} line followed by the scheduling latency's median and 99th
     * percentile since the scheduler started, e.g.
     * {@code SCHED 1003ms: gomaxprocs=2 idleprocs=2 threads=4 spinningthreads=0 idlethreads=2 runqueue=0 [0 0] latp50=12us latp99=3.1ms}.
     * See {@link #schedtraceLine(long, SchedulerSnapshot)}.
     */
    public String schedtraceLine(long elapsedMillis) {
        return schedtraceLine(elapsedMillis, null);
    }

    /**
     * Go's {@code GODEBUG=schedtrace} line followed by the median and 99th percentile of the
     * scheduling latency of the tasks sampled since {@code previous} (a snapshot of the same
     * scheduler taken earlier, or null: since it started), e.g.
     * {@code SCHED 1003ms: gomaxprocs=2 idleprocs=2 threads=4 spinningthreads=0 idlethreads=2 runqueue=0 [0 0] latp50=12us latp99=3.1ms}.
     * The latencies are upper bounds, at most 25 % above (see {@link LatencyHistogram}), written
     * in whole microseconds below 1 ms ({@code 48us}), else with two figures ({@code 3.1ms},
     * {@code 12ms}, {@code 1.5s}); {@code -} when no task was sampled (sampling off, or no task
     * queued).
     */
    public String schedtraceLine(long elapsedMillis, SchedulerSnapshot previous) {
        LatencyHistogram waits = previous == null ? latency.all() : latency.all().minus(previous.latency.all());
        StringBuilder line = new StringBuilder("SCHED ").append(elapsedMillis).append("ms:");
        for (SchedulerMetric metric : SchedulerMetric.values()) {
            if (metric.schedtraceKey() != null) {
                line.append(' ').append(metric.schedtraceKey()).append('=').append(get(metric));
            }
        }
        return line.append(processors.stream().map(p -> String.valueOf(p.runnable()))
                        .collect(Collectors.joining(" ", " [", "]")))
                .append(" latp50=").append(latencyText(waits, 0.5))
                .append(" latp99=").append(latencyText(waits, 0.99)).toString();
    }

    private static String latencyText(LatencyHistogram waits, double percentile) {
        return waits.count() == 0 ? "-" : LatencyHistogram.text(waits.percentileNanos(percentile));
    }

    /** A multi-line dump for failure messages and logs. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        out.append("scheduler ").append(name).append(": procs=").append(procs())
                .append(" idleProcs=").append(idleProcs())
                .append(" carriers=").append(carriers()).append(" (running=").append(runningCarriers())
                .append(" spinning=").append(spinningCarriers()).append(" idle=").append(idleCarriers())
                .append(" blocked=").append(blockedCarriers())
                .append(") globalQueue=").append(globalQueueLength()).append('\n');
        for (ProcessorSnapshot p : processors) {
            out.append("  P").append(p.id()).append(p.idle() ? " idle" : " busy")
                    .append(" local=").append(p.localQueueLength())
                    .append(" runnext=").append(p.runnextOccupied() ? 1 : 0)
                    .append(" schedtick=").append(p.schedtick())
                    .append(" tasksRun=").append(p.tasksRun())
                    .append(" timers=").append(p.pendingTimers())
                    .append(p.preemptRequested() ? " preemptRequested" : "")
                    .append(p.running() != null ? " running=" + p.running() + " for " + p.runningNanos() + "ns" : "")
                    .append('\n');
        }
        out.append("  counters:");
        for (SchedulerMetric metric : SchedulerMetric.values()) {
            if (metric.kind() == SchedulerMetric.Kind.COUNTER) {
                out.append(' ').append(metric.figureName()).append('=').append(get(metric));
            }
        }
        out.append(terminated ? " terminated" : "");
        if (latency.sampleEvery() == 0) {
            out.append("\n  latency: not sampled");
        } else {
            out.append("\n  latency (about 1 task in ").append(latency.sampleEvery()).append("): all ")
                    .append(latency.all());
            latency.bySource().forEach((source, waits) -> {
                if (waits.count() > 0) {
                    out.append(", ").append(source).append(' ').append(waits);
                }
            });
        }
        return out.toString();
    }
}
