package io.loomgmp.trace;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The loom-gmp events of one recording, as plain records in time order. Times are nanoseconds
 * since the epoch (JFR's own resolution); thread ids are {@code Thread.threadId()} values, named
 * through {@link #threadName}. Built by {@link RecordingReader}, laid out by {@link Timeline}.
 */
final class TraceModel {
    record Run(int processor, long carrier, long virtualThread, long start, long duration, String source,
               String end) {
        long finish() {
            return start + duration;
        }
    }

    record Steal(long time, int thief, int victim, int tasks, long carrier) {
    }

    record Preempt(long time, int processor, String action, long carrier, long sliceNanos) {
        boolean requested() {
            return "requested".equals(action);
        }
    }

    record Handoff(long time, int processor, long fromCarrier, long toCarrier, long blockedNanos) {
    }

    record CarrierPark(long carrier, long start, long duration) {
    }

    record CarrierSpin(int processor, long carrier, long start, long duration, boolean foundWork) {
    }

    record Wake(long time, int processor, long waker, long virtualThread, String placement) {
    }

    /** One {@code loomgmp.SchedTrace}; {@code localQueues} has one entry per P. */
    record SchedSample(long time, String scheduler, int procs, int idleProcs, int carriers, int spinningCarriers,
                       int idleCarriers, int blockedCarriers, int globalQueue, int[] localQueues, long tasksRun,
                       long steals, long preemptRequests, long handoffs) {
        int runnable() {
            int sum = globalQueue;
            for (int q : localQueues) {
                sum += q;
            }
            return sum;
        }
    }

    final String source;
    final List<Run> runs = new ArrayList<>();
    final List<Steal> steals = new ArrayList<>();
    final List<Preempt> preempts = new ArrayList<>();
    final List<Handoff> handoffs = new ArrayList<>();
    final List<CarrierPark> parks = new ArrayList<>();
    final List<CarrierSpin> spins = new ArrayList<>();
    final List<Wake> wakes = new ArrayList<>();
    final List<SchedSample> samples = new ArrayList<>();
    private final Map<Long, String> threadNames = new HashMap<>();
    long eventsRead;

    TraceModel(String source) {
        this.source = source;
    }

    int loomGmpEvents() {
        return runs.size() + steals.size() + preempts.size() + handoffs.size() + parks.size() + spins.size()
                + wakes.size() + samples.size();
    }

    void nameThread(long id, String name) {
        if (id != 0 && name != null && !name.isEmpty()) {
            threadNames.putIfAbsent(id, name);
        }
    }

    /** The name the recording gave thread {@code id}, or null. */
    String knownName(long id) {
        return threadNames.get(id);
    }

    /** "gmp-M3 (#41)" when the recording named the thread, else "thread #41". */
    String threadName(long id) {
        String name = threadNames.get(id);
        return name == null ? "thread #" + id : name + " (#" + id + ")";
    }

    /** Sorts every list by time: JFR writes events per thread buffer, not in global time order. */
    void sort() {
        runs.sort(Comparator.comparingLong(Run::start).thenComparingLong(Run::finish));
        steals.sort(Comparator.comparingLong(Steal::time));
        preempts.sort(Comparator.comparingLong(Preempt::time));
        handoffs.sort(Comparator.comparingLong(Handoff::time));
        parks.sort(Comparator.comparingLong(CarrierPark::start));
        spins.sort(Comparator.comparingLong(CarrierSpin::start));
        wakes.sort(Comparator.comparingLong(Wake::time));
        samples.sort(Comparator.comparingLong(SchedSample::time));
    }

    /** The earliest time of any event; 0 when there are none. */
    long firstTime() {
        long first = Long.MAX_VALUE;
        if (!runs.isEmpty()) first = Math.min(first, runs.getFirst().start());
        if (!steals.isEmpty()) first = Math.min(first, steals.getFirst().time());
        if (!preempts.isEmpty()) first = Math.min(first, preempts.getFirst().time());
        if (!handoffs.isEmpty()) first = Math.min(first, handoffs.getFirst().time());
        if (!parks.isEmpty()) first = Math.min(first, parks.getFirst().start());
        if (!spins.isEmpty()) first = Math.min(first, spins.getFirst().start());
        if (!wakes.isEmpty()) first = Math.min(first, wakes.getFirst().time());
        if (!samples.isEmpty()) first = Math.min(first, samples.getFirst().time());
        return first == Long.MAX_VALUE ? 0 : first;
    }

    /** The latest end of any event; 0 when there are none. */
    long lastTime() {
        long last = 0;
        for (Run r : runs) last = Math.max(last, r.finish());
        for (CarrierPark p : parks) last = Math.max(last, p.start() + p.duration());
        for (CarrierSpin s : spins) last = Math.max(last, s.start() + s.duration());
        if (!steals.isEmpty()) last = Math.max(last, steals.getLast().time());
        if (!preempts.isEmpty()) last = Math.max(last, preempts.getLast().time());
        if (!handoffs.isEmpty()) last = Math.max(last, handoffs.getLast().time());
        if (!wakes.isEmpty()) last = Math.max(last, wakes.getLast().time());
        if (!samples.isEmpty()) last = Math.max(last, samples.getLast().time());
        return last;
    }

    static long epochNanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }
}
