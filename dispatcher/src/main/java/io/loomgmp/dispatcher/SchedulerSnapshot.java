package io.loomgmp.dispatcher;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * An immutable view of a {@link GmpScheduler}: its Ps, carriers, queues, cumulative counters and
 * scheduling latencies.
 * Taken without locks, so the figures are each exact at some moment but not all at the same one.
 *
 * @param name              the scheduler's name
 * @param procs             number of Ps
 * @param idleProcs         Ps on the idle list
 * @param carriers          carrier threads alive
 * @param runningCarriers   carriers holding a P, neither spinning nor parked (running tasks, or
 *                          in transit)
 * @param spinningCarriers  carriers searching for work
 * @param idleCarriers      carriers parked on the idle list
 * @param blockedCarriers   carriers still in a task whose P sysmon handed to another carrier
 * @param globalQueueLength tasks on the global queue
 * @param processors        one entry per P, by id
 * @param tasksRun          tasks run, over all Ps
 * @param runnextHits       tasks taken from {@code runnext} (LIFO hand-offs)
 * @param localPops         tasks taken from local rings
 * @param globalGrabs       tasks taken from the global queue in batches (local queue empty)
 * @param fairnessTickGrabs tasks taken from the global queue on the fairness tick
 * @param steals            successful steals
 * @param stolenTasks       tasks moved by steals
 * @param overflows         times a full local ring moved half of itself to the global queue
 * @param parks             times a carrier parked on the idle list
 * @param spins             times a carrier started spinning
 * @param preemptRequests   times sysmon asked a P's running task to give the P up
 * @param handoffs          times sysmon took a P from a carrier blocked in a task and handed it
 *                          to another carrier
 * @param timersFired       timers run (a virtual thread's sleep or timeout that expired)
 * @param failures          failures inside the scheduler itself (not in tasks) that it recovered
 *                          from: carriers that could not be started or that failed, sysmon
 *                          rounds that failed, events that could not be recorded (see
 *                          {@link SchedulerFailure})
 * @param terminated        whether the scheduler has terminated: closed, every task run, every
 *                          carrier told to end
 * @param latency           scheduling latency, cumulative: how long sampled tasks waited, runnable,
 *                          for a carrier, in all and by where they waited (see {@link SchedLatency})
 */
public record SchedulerSnapshot(
        String name,
        int procs,
        int idleProcs,
        int carriers,
        int runningCarriers,
        int spinningCarriers,
        int idleCarriers,
        int blockedCarriers,
        int globalQueueLength,
        List<ProcessorSnapshot> processors,
        long tasksRun,
        long runnextHits,
        long localPops,
        long globalGrabs,
        long fairnessTickGrabs,
        long steals,
        long stolenTasks,
        long overflows,
        long parks,
        long spins,
        long preemptRequests,
        long handoffs,
        long timersFired,
        long failures,
        boolean terminated,
        SchedLatency latency) {

    public SchedulerSnapshot {
        processors = List.copyOf(processors);
        Objects.requireNonNull(latency, "latency");
    }

    /**
     * One P.
     *
     * @param id               the P's index, 0 to procs - 1
     * @param idle             whether it is on the idle list (or being handed to a carrier)
     * @param localQueueLength tasks in its ring, not counting runnext
     * @param runnextOccupied  whether its runnext slot holds a task
     * @param schedtick        schedules that started a new time slice
     * @param tasksRun         tasks run on it
     * @param pendingTimers    timers waiting in its heap, cancelled ones not counted
     * @param preemptRequested whether sysmon's request that its running task give it up is open
     * @param running          the task it is running now, or null: {@code VT <id> <name>} for a
     *                         virtual thread (no name if it has none), else {@code task <class>}
     * @param runningNanos     how long that task has been running, as sysmon saw it: from sysmon's
     *                         first look at it, so short by up to one look's interval (at most
     *                         10 ms while a P is busy); 0 if sysmon has not looked at it yet; -1
     *                         when it runs no task, or sysmon is off
     */
    public record ProcessorSnapshot(int id, boolean idle, int localQueueLength, boolean runnextOccupied,
                                    long schedtick, long tasksRun, int pendingTimers, boolean preemptRequested,
                                    String running, long runningNanos) {
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
        return processors.stream().mapToInt(ProcessorSnapshot::pendingTimers).sum();
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
        return "SCHED " + elapsedMillis + "ms: gomaxprocs=" + procs + " idleprocs=" + idleProcs
                + " threads=" + carriers + " spinningthreads=" + spinningCarriers
                + " idlethreads=" + idleCarriers + " runqueue=" + globalQueueLength + " "
                + processors.stream().map(p -> String.valueOf(p.runnable()))
                        .collect(Collectors.joining(" ", "[", "]"))
                + " latp50=" + latencyText(waits, 0.5) + " latp99=" + latencyText(waits, 0.99);
    }

    private static String latencyText(LatencyHistogram waits, double percentile) {
        return waits.count() == 0 ? "-" : LatencyHistogram.text(waits.percentileNanos(percentile));
    }

    /** A multi-line dump for failure messages and logs. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        out.append("scheduler ").append(name).append(": procs=").append(procs)
                .append(" idleProcs=").append(idleProcs)
                .append(" carriers=").append(carriers).append(" (running=").append(runningCarriers)
                .append(" spinning=").append(spinningCarriers).append(" idle=").append(idleCarriers)
                .append(" blocked=").append(blockedCarriers)
                .append(") globalQueue=").append(globalQueueLength).append('\n');
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
        out.append("  counters: tasksRun=").append(tasksRun).append(" runnextHits=").append(runnextHits)
                .append(" localPops=").append(localPops).append(" globalGrabs=").append(globalGrabs)
                .append(" fairnessTickGrabs=").append(fairnessTickGrabs).append(" steals=").append(steals)
                .append(" stolenTasks=").append(stolenTasks).append(" overflows=").append(overflows)
                .append(" parks=").append(parks).append(" spins=").append(spins)
                .append(" preemptRequests=").append(preemptRequests).append(" handoffs=").append(handoffs)
                .append(" timersFired=").append(timersFired).append(" failures=").append(failures)
                .append(terminated ? " terminated" : "");
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
