package io.loomgmp.dispatcher;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * What a scheduler reports about itself, read from any thread without a lock: the snapshot
 * ({@link SchedulerSnapshot}, for the API, the MXBean, metrics and JFR), the one-line summary
 * ({@code GmpScheduler.toString}, and so {@code jcmd Thread.vthread_scheduler} under the agent),
 * the counts the JDK's own scheduler MXBean asks for, and the scheduling latencies. Racy reads:
 * each figure is exact only at its own instant. Nothing here changes the scheduler's state, and
 * a description that fails costs only itself ({@link #describe}).
 */
final class Snapshots {
    private Snapshots() {
    }

    /**
     * Any thread, no lock: a one-line description of the scheduler's state, for
     * {@code GmpScheduler.toString} (and so for {@code jcmd Thread.vthread_scheduler} under the
     * agent). Racy reads: each figure is exact only at its own instant.
     */
    static String summary(Scheduling s) {
        int active = s.procs;
        int local = 0;
        int timers = 0;
        StringBuilder queues = new StringBuilder();
        for (int i = 0; i < active; i++) {
            Processor p = s.allp[i];
            int n = p.runQueue.size() + (p.runQueue.hasNext() ? 1 : 0);
            local += n;
            timers += p.timers.pending();
            queues.append(i == 0 ? "" : " ").append(n);
        }
        CarrierCounts c = CarrierCounts.of(s);
        int global = s.global.size();
        String state = s.shutdown.isTerminated() ? "terminated" : s.shutdown.isClosed() ? "closed" : "running";
        return "GmpScheduler[" + s.name + ", procs=" + active + ", idle Ps=" + Math.min(active, s.idle.idleProcs())
                + ", carriers=" + c.all + " (running " + c.running() + ", spinning " + c.spinning
                + ", idle " + c.idle + ", blocked " + c.blocked + ")"
                + ", max carriers=" + s.maxCarriers + ", queued=" + (global + local) + " (global " + global
                + ", local [" + queues + "]), timers=" + timers + ", " + state + "]";
    }

    /**
     * Any thread, no lock, no allocation: tasks waiting to run, on the global queue and in the
     * active Ps' rings and runnext slots; racy, as {@link #summary} is.
     */
    static long queuedTasks(Scheduling s) {
        long queued = s.global.size();
        for (int i = 0, n = s.procs; i < n; i++) {
            RunQueue q = s.allp[i].runQueue;
            queued += q.size() + (q.hasNext() ? 1 : 0);
        }
        return queued;
    }

    /**
     * Any thread, no lock, no allocation: tasks running now, on an active P or on a carrier
     * whose P was handed off while it blocked.
     */
    static int runningTasks(Scheduling s) {
        int running = s.handOff.detached();
        for (int i = 0, n = s.procs; i < n; i++) {
            Carrier m = s.allp[i].owner();
            if (m != null && m.runningTask() != null) {
                running++;
            }
        }
        return running;
    }

    /**
     * {@code VT <id> <name>} for a virtual thread's task (no name if it has none), else
     * {@code task <class>}. A {@code Scheduling.taskThread} function that throws costs only the thread:
     * the task is then described by its class.
     */
    static String describe(Scheduling s, Runnable task) {
        Thread thread;
        try {
            thread = s.taskThread.apply(task);
        } catch (Throwable failure) {
            thread = null;
        }
        if (thread == null) {
            String type = task.getClass().getName();
            int lambda = type.indexOf("$$Lambda");
            return "task " + (lambda < 0 ? type : type.substring(0, lambda) + " lambda");
        }
        String name = thread.getName();
        return (thread.isVirtual() ? "VT " : "thread ") + thread.threadId() + (name.isEmpty() ? "" : " " + name);
    }

    /**
     * Any thread; never throws for a task it cannot describe (see {@link #describe}). Reads the
     * Ps once, then each {@link SchedulerMetric} from those reads ({@link Reading}).
     */
    static SchedulerSnapshot of(Scheduling s) {
        // procs before allocated: allocated >= procs for any procs read (see ProcResize). The
        // list shows the active Ps; the totals count every P ever made, so that they never go
        // down when Ps are retired.
        int active = s.procs;
        int made = s.allocated;
        List<SchedulerSnapshot.ProcessorSnapshot> ps = new ArrayList<>(active);
        long[] totals = new long[Counter.values().length];
        long now = System.nanoTime();
        for (int i = 0; i < made; i++) {
            Processor p = s.allp[i];
            for (Counter c : Counter.values()) {
                totals[c.ordinal()] += p.counted(c);
            }
            if (i >= active) {
                continue;
            }
            Carrier m = p.owner();
            Runnable task = m == null ? null : m.runningTask();
            long tasksRun = p.counted(Counter.TASKS_RUN);
            ps.add(new SchedulerSnapshot.ProcessorSnapshot(
                    p.id, p.holder() == null, p.runQueue.size(), p.runQueue.hasNext(), p.schedtick(),
                    tasksRun, p.timers.pending(), p.preemptRequested,
                    task == null ? null : describe(s, task), task == null ? -1 : s.sysmon.runningNanos(p, tasksRun, now)));
        }
        Reading reading = new Reading(s, active, made, totals, CarrierCounts.of(s), List.copyOf(ps));
        SchedulerMetric[] metrics = SchedulerMetric.values();
        long[] figures = new long[metrics.length];
        for (SchedulerMetric metric : metrics) {
            figures[metric.ordinal()] = metric.read(reading);
        }
        return new SchedulerSnapshot(s.name, reading.processors(), figures, s.shutdown.isTerminated(), latency(s));
    }

    /**
     * The reads one snapshot shares, from which each {@link SchedulerMetric} takes its figure:
     * the Ps and the carriers' states are read once, so the figures drawn from them agree with
     * each other and with {@code processors} (the carriers by state add up; the pending timers
     * are those of the listed Ps).
     *
     * @param active     the Ps in use, read before {@code made}
     * @param made       the Ps ever made (retired ones included): the counters' span
     * @param totals     each per-P {@link Counter}, summed over the {@code made} Ps
     * @param processors the {@code active} Ps' entries
     */
    record Reading(Scheduling s, int active, int made, long[] totals, CarrierCounts carriers,
                   List<SchedulerSnapshot.ProcessorSnapshot> processors) {
        /** A per-P counter, summed over every P ever made. */
        long total(Counter counter) {
            return totals[counter.ordinal()];
        }

        /** A figure kept by each P, summed over every P ever made. */
        long sumOverEveryP(ToLongFunction<Processor> figure) {
            long sum = 0;
            for (int i = 0; i < made; i++) {
                sum += figure.applyAsLong(s.allp[i]);
            }
            return sum;
        }

        /** A figure of the listed (active) Ps' entries, summed. */
        long sumOverActivePs(ToIntFunction<SchedulerSnapshot.ProcessorSnapshot> figure) {
            long sum = 0;
            for (SchedulerSnapshot.ProcessorSnapshot p : processors) {
                sum += figure.applyAsInt(p);
            }
            return sum;
        }
    }

    /** Any thread: the scheduling latencies recorded so far, summed over the Ps' recorders. */
    static LatencyTotals latency(Scheduling s) {
        int sources = RunSource.ALL.length;
        long[][] counts = new long[sources][LatencyHistogram.BUCKETS];
        long[] totals = new long[sources];
        long[] maxima = new long[sources];
        for (int i = 0, n = s.allocated; i < n; i++) {
            LatencyRecorder recorder = s.allp[i].latencyRecorderIfAny();
            if (recorder != null) {
                recorder.addTo(counts, totals, maxima);
            }
        }
        LatencyHistogram[] bySource = new LatencyHistogram[sources];
        for (int i = 0; i < sources; i++) {
            bySource[i] = new LatencyHistogram(counts[i], totals[i], maxima[i]);
        }
        return LatencyTotals.of(s.latencySamples.sampleEvery, bySource);
    }

    /** The carriers by state, read once each: the summary and the snapshot count them alike. */
    record CarrierCounts(int all, int spinning, int idle, int blocked) {
        static CarrierCounts of(Scheduling s) {
            return new CarrierCounts(s.parking.carriers(), s.idle.spinning(), s.parking.idleCarriers(), s.handOff.detached());
        }

        /** Holding a P, neither spinning nor parked; never below 0 although the reads are racy. */
        int running() {
            return Math.max(0, all - spinning - idle - blocked);
        }
    }
}
