package io.loomgmp.trace;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The figures trace.html shows above and below its timeline: counts of runs, steals, preemptions
 * and hand-offs, runs by source and by end, a histogram of run lengths, each P's
 * utilisation (the share of the recorded span it spent running tasks, from its lane's slices, so a
 * run cut by a hand-off counts only while it held the P), and the per-virtual-thread analysis
 * with its scheduling latencies ({@link ThreadAnalysis}).
 */
final class Summary {
    final long span;
    final int procs;
    int runs;
    int virtualThreads;
    long runNanos;
    long longestRun;
    int steals;
    long stolenTasks;
    int preemptRequests;
    int preemptsHonoured;
    int handoffs;
    int wakes;
    int parks;
    int spins;
    int spinsFoundWork;
    int flows;
    int samples;
    final Map<String, Integer> bySource = new LinkedHashMap<>();
    final Map<String, Integer> byEnd = new LinkedHashMap<>();
    /** Run lengths, 1 µs to 10 s. */
    final Histogram runLengths = Histogram.oneTwoFive(1_000, 10_000_000_000L);
    final long[] busyNanos;
    final int[] runsPerP;
    final ThreadAnalysis threads;

    private Summary(long span, int procs, ThreadAnalysis threads) {
        this.span = span;
        this.procs = procs;
        this.threads = threads;
        this.busyNanos = new long[procs];
        this.runsPerP = new int[procs];
        for (String source : List.of("runnext", "local", "global", "fairness", "stolen")) {
            bySource.put(source, 0);
        }
    }

    static Summary of(Timeline timeline) {
        TraceModel m = timeline.model;
        Summary s = new Summary(timeline.span(), timeline.procs, ThreadAnalysis.of(m, timeline.procs));
        Set<Long> threads = new HashSet<>();
        for (TraceModel.Run r : m.runs) {
            s.runs++;
            s.runNanos += r.duration();
            s.longestRun = Math.max(s.longestRun, r.duration());
            if (r.virtualThread() != 0) {
                threads.add(r.virtualThread());
            }
            s.bySource.merge(r.source(), 1, Integer::sum);
            s.byEnd.merge(r.end(), 1, Integer::sum);
            s.runLengths.add(r.duration());
        }
        s.virtualThreads = threads.size();
        for (int p = 0; p < timeline.procs; p++) {
            for (Timeline.Slice slice : timeline.procLanes.get(p).slices) {
                if (slice.kind() == Timeline.SliceKind.RUN) {
                    s.busyNanos[p] += slice.duration();
                    s.runsPerP[p]++;
                }
            }
        }
        for (TraceModel.Steal st : m.steals) {
            s.steals++;
            s.stolenTasks += st.tasks();
        }
        for (TraceModel.Preempt p : m.preempts) {
            if (p.requested()) {
                s.preemptRequests++;
            } else {
                s.preemptsHonoured++;
            }
        }
        s.handoffs = m.handoffs.size();
        s.wakes = m.wakes.size();
        s.parks = m.parks.size();
        for (TraceModel.CarrierSpin spin : m.spins) {
            s.spins++;
            if (spin.foundWork()) {
                s.spinsFoundWork++;
            }
        }
        s.flows = timeline.flows.size();
        s.samples = m.samples.size();
        return s;
    }

    double utilisation(int p) {
        return (double) busyNanos[p] / span;
    }
}
