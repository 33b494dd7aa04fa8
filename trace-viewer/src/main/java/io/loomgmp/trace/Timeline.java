package io.loomgmp.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lays a {@link TraceModel} out the way {@code go tool trace} does, for both writers: one lane per
 * P holding its runs (slices) and its steals, honoured preemptions and wake-ups (marks); a sysmon
 * lane with preemption requests and hand-offs; one lane per carrier with its parks, spins and the
 * time it stayed blocked in a task after losing its P; counters; and flows from each wake-up to
 * the run it caused.
 *
 * <p><b>Invariant: slices on a lane never overlap</b> (so they nest trivially, which the Chrome
 * format requires per thread). A P runs one task at a time, so two runs on a P overlap only when
 * sysmon handed the P to another carrier while the first carrier was still blocked in its task, or
 * by clock jitter between carriers. Either way the earlier slice is cut where the later one starts
 * (at the hand-off, when one is recorded in between); after a hand-off the rest of the blocked run
 * goes to its carrier's lane as a "blocked" slice, as Go moves a goroutine in a syscall off its P.
 *
 * <p>All times stay in epoch nanoseconds; writers subtract {@link #origin}.
 */
final class Timeline {
    enum Section {
        STATS(1, "Stats"), PROCS(2, "Procs"), CARRIERS(3, "Carriers");

        final int pid;
        final String title;

        Section(int pid, String title) {
            this.pid = pid;
            this.title = title;
        }
    }

    enum SliceKind { RUN, WAKE_ANCHOR, PARK, SPIN, BLOCKED }

    enum MarkKind { STEAL, PREEMPT_REQUESTED, PREEMPT_HONOURED, HANDOFF, WAKE }

    /**
     * A span of time on a lane. {@code event} is the model record it came from. For a run cut short
     * on its P lane, {@code fullEnd} is where the run really ended; otherwise it equals the end.
     * A {@code WAKE_ANCHOR} is a 1 ns slice that gives a wake-up outside any run a slice for its
     * flow arrow to start from.
     */
    record Slice(long start, long duration, SliceKind kind, Object event, long fullEnd) {
        long end() {
            return start + duration;
        }

        boolean cut() {
            return fullEnd != end();
        }
    }

    record Mark(long time, MarkKind kind, Object event) {
    }

    /** An arrow from a wake-up on one lane to the start of the run it caused on another. */
    record Flow(int id, Lane from, long fromTime, Lane to, long toTime, long virtualThread) {
    }

    /** A step series, one value from each time on: {@code times} ascending. */
    record Counter(String name, String key, long[] times, long[] values) {
    }

    static final class Lane {
        final Section section;
        final long tid;
        final String name;
        final int sortIndex;
        final List<Slice> slices = new ArrayList<>();
        final List<Mark> marks = new ArrayList<>();

        Lane(Section section, long tid, String name, int sortIndex) {
            this.section = section;
            this.tid = tid;
            this.name = name;
            this.sortIndex = sortIndex;
        }

        /** The slice with start <= time < end, or null; slices sorted and not overlapping. */
        Slice sliceAt(long time) {
            int lo = 0;
            int hi = slices.size() - 1;
            Slice found = null;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (slices.get(mid).start() <= time) {
                    found = slices.get(mid);
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return found != null && time < found.end() ? found : null;
        }

        private void sortSlices() {
            slices.sort(Comparator.comparingLong(Slice::start).thenComparing(Comparator.comparingLong(Slice::duration).reversed()));
        }
    }

    /** Lane ids in the Procs section beside the P ids (0 to procs - 1). */
    static final long SYSMON_TID = 1_000_000;
    static final long OTHER_TID = 1_000_001;

    final TraceModel model;
    final long origin;
    final long end;
    final int procs;
    final List<Lane> procLanes = new ArrayList<>();
    final Lane sysmon;
    /** Wake-ups by threads that hold no P (JDK timer threads, platform threads). */
    final Lane other;
    final List<Lane> carrierLanes = new ArrayList<>();
    final List<Flow> flows = new ArrayList<>();
    final List<Counter> counters = new ArrayList<>();
    int runsWithoutProcessor;

    private Timeline(TraceModel model) {
        this.model = model;
        this.origin = model.firstTime();
        this.end = Math.max(origin, model.lastTime());
        this.procs = countProcs(model);
        this.sysmon = new Lane(Section.PROCS, SYSMON_TID, "Sysmon", -1);
        for (int p = 0; p < procs; p++) {
            procLanes.add(new Lane(Section.PROCS, p, "Proc " + p, p));
        }
        this.other = new Lane(Section.PROCS, OTHER_TID, "Other threads", procs);
    }

    static Timeline of(TraceModel model) {
        Timeline timeline = new Timeline(model);
        Map<Long, Lane> carriers = new TreeMap<>();
        timeline.layOutRuns(carriers);
        timeline.addMarks();
        timeline.addCarrierSlices(carriers);
        timeline.linkWakesToRuns();
        timeline.addCounters();
        return timeline;
    }

    long span() {
        return Math.max(1, end - origin);
    }

    /** The Procs-section lanes in display order: sysmon, the Ps, then other threads if used. */
    List<Lane> procSectionLanes() {
        List<Lane> lanes = new ArrayList<>();
        lanes.add(sysmon);
        lanes.addAll(procLanes);
        if (!other.slices.isEmpty() || !other.marks.isEmpty()) {
            lanes.add(other);
        }
        return lanes;
    }

    private static int countProcs(TraceModel m) {
        int max = -1;
        for (TraceModel.Run r : m.runs) max = Math.max(max, r.processor());
        for (TraceModel.Steal s : m.steals) max = Math.max(max, Math.max(s.thief(), s.victim()));
        for (TraceModel.Preempt p : m.preempts) max = Math.max(max, p.processor());
        for (TraceModel.Handoff h : m.handoffs) max = Math.max(max, h.processor());
        for (TraceModel.CarrierSpin s : m.spins) max = Math.max(max, s.processor());
        for (TraceModel.Wake w : m.wakes) max = Math.max(max, w.processor());
        for (TraceModel.SchedSample s : m.samples) max = Math.max(max, Math.max(s.procs(), s.localQueues().length) - 1);
        return max + 1;
    }

    private void layOutRuns(Map<Long, Lane> carriers) {
        List<List<TraceModel.Run>> perP = new ArrayList<>();
        for (int p = 0; p < procs; p++) {
            perP.add(new ArrayList<>());
        }
        for (TraceModel.Run run : model.runs) { // model.runs is sorted by start, then end
            if (run.processor() < 0) {
                runsWithoutProcessor++;
            } else {
                perP.get(run.processor()).add(run);
            }
        }
        for (int p = 0; p < procs; p++) {
            List<Slice> slices = procLanes.get(p).slices;
            for (TraceModel.Run run : perP.get(p)) {
                if (!slices.isEmpty()) {
                    Slice previous = slices.getLast();
                    if (run.start() < previous.end()) {
                        TraceModel.Handoff handoff = handoffBetween(p, previous.start(), run.start());
                        long cutAt = handoff != null ? handoff.time() : run.start();
                        slices.set(slices.size() - 1, new Slice(previous.start(), cutAt - previous.start(),
                                SliceKind.RUN, previous.event(), previous.fullEnd()));
                        if (handoff != null) {
                            long carrier = ((TraceModel.Run) previous.event()).carrier();
                            carrierLane(carriers, carrier).slices.add(new Slice(cutAt, previous.fullEnd() - cutAt,
                                    SliceKind.BLOCKED, previous.event(), previous.fullEnd()));
                        }
                    }
                }
                slices.add(new Slice(run.start(), run.duration(), SliceKind.RUN, run, run.finish()));
            }
        }
    }

    /** The latest hand-off of P p at or after from and at or before to, or null. */
    private TraceModel.Handoff handoffBetween(int p, long from, long to) {
        TraceModel.Handoff found = null;
        for (TraceModel.Handoff h : model.handoffs) { // hand-offs are rare: a scan is fine
            if (h.time() > to) {
                break;
            }
            if (h.processor() == p && h.time() >= from) {
                found = h;
            }
        }
        return found;
    }

    private Lane carrierLane(Map<Long, Lane> carriers, long carrier) {
        return carriers.computeIfAbsent(carrier, id -> new Lane(Section.CARRIERS, id, model.threadName(id), 0));
    }

    private Lane procLane(int p) {
        return p >= 0 && p < procs ? procLanes.get(p) : other;
    }

    private void addMarks() {
        for (TraceModel.Steal s : model.steals) {
            procLane(s.thief()).marks.add(new Mark(s.time(), MarkKind.STEAL, s));
        }
        for (TraceModel.Preempt p : model.preempts) {
            if (p.requested()) {
                sysmon.marks.add(new Mark(p.time(), MarkKind.PREEMPT_REQUESTED, p));
            } else {
                procLane(p.processor()).marks.add(new Mark(p.time(), MarkKind.PREEMPT_HONOURED, p));
            }
        }
        for (TraceModel.Handoff h : model.handoffs) {
            sysmon.marks.add(new Mark(h.time(), MarkKind.HANDOFF, h));
        }
        Map<Lane, List<Slice>> anchors = new HashMap<>();
        for (TraceModel.Wake w : model.wakes) {
            Lane lane = procLane(w.processor());
            lane.marks.add(new Mark(w.time(), MarkKind.WAKE, w));
            // A flow arrow starts from the slice around it; give a wake outside any run its own.
            // Anchors are 1 ns long on a ns grid, so they cannot overlap a run they are not in.
            if (lane.sliceAt(w.time()) == null) {
                anchors.computeIfAbsent(lane, k -> new ArrayList<>())
                        .add(new Slice(w.time(), 1, SliceKind.WAKE_ANCHOR, w, w.time() + 1));
            }
        }
        anchors.forEach((lane, added) -> {
            lane.slices.addAll(added);
            lane.sortSlices();
        });
        for (Lane lane : procSectionLanes()) {
            lane.marks.sort(Comparator.comparingLong(Mark::time));
        }
    }

    private void addCarrierSlices(Map<Long, Lane> carriers) {
        for (TraceModel.CarrierPark p : model.parks) {
            carrierLane(carriers, p.carrier()).slices.add(new Slice(p.start(), p.duration(), SliceKind.PARK, p,
                    p.start() + p.duration()));
        }
        for (TraceModel.CarrierSpin s : model.spins) {
            carrierLane(carriers, s.carrier()).slices.add(new Slice(s.start(), s.duration(), SliceKind.SPIN, s,
                    s.start() + s.duration()));
        }
        for (Lane lane : carriers.values()) {
            lane.sortSlices();
            // A carrier does one thing at a time; cut any overlap left by clock jitter.
            List<Slice> slices = lane.slices;
            for (int i = 1; i < slices.size(); i++) {
                Slice before = slices.get(i - 1);
                Slice after = slices.get(i);
                if (after.start() < before.end()) {
                    slices.set(i - 1, new Slice(before.start(), after.start() - before.start(), before.kind(),
                            before.event(), before.fullEnd()));
                }
            }
            carrierLanes.add(lane);
        }
    }

    /**
     * An arrow from each wake-up to the first run of the same virtual thread that starts at or
     * after it; when several wake-ups precede one run, only the last one caused it.
     */
    private void linkWakesToRuns() {
        // Identity maps: a slice is its own key (record equality would hash whole events).
        Map<Long, List<Slice>> runsByThread = new HashMap<>();
        Map<Slice, Lane> laneOf = new IdentityHashMap<>();
        for (Lane lane : procLanes) {
            for (Slice s : lane.slices) {
                if (s.kind() == SliceKind.RUN) {
                    long vt = ((TraceModel.Run) s.event()).virtualThread();
                    if (vt != 0) {
                        runsByThread.computeIfAbsent(vt, k -> new ArrayList<>()).add(s);
                        laneOf.put(s, lane);
                    }
                }
            }
        }
        runsByThread.values().forEach(list -> list.sort(Comparator.comparingLong(Slice::start)));
        Map<Slice, TraceModel.Wake> cause = new IdentityHashMap<>();
        for (TraceModel.Wake w : model.wakes) { // in time order: a later wake replaces an earlier one
            List<Slice> runs = runsByThread.get(w.virtualThread());
            if (runs == null) {
                continue;
            }
            int i = firstStartingAtOrAfter(runs, w.time());
            if (i < runs.size()) {
                cause.put(runs.get(i), w);
            }
        }
        List<Map.Entry<Slice, TraceModel.Wake>> links = new ArrayList<>(cause.entrySet());
        links.sort(Comparator.comparingLong(e -> e.getValue().time()));
        int id = 1;
        for (Map.Entry<Slice, TraceModel.Wake> link : links) {
            TraceModel.Wake w = link.getValue();
            flows.add(new Flow(id++, procLane(w.processor()), w.time(), laneOf.get(link.getKey()),
                    link.getKey().start(), w.virtualThread()));
        }
    }

    private static int firstStartingAtOrAfter(List<Slice> sorted, long time) {
        int lo = 0;
        int hi = sorted.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted.get(mid).start() < time) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Runnable, carriers and spinning come from the periodic schedtrace samples (one series per
     * scheduler when the recording holds several). Running is exact when runs were recorded: the
     * number of Ps in a run at each moment; otherwise the busy Ps of the samples.
     */
    private void addCounters() {
        Map<String, List<TraceModel.SchedSample>> byScheduler = new LinkedHashMap<>();
        for (TraceModel.SchedSample s : model.samples) {
            byScheduler.computeIfAbsent(s.scheduler(), k -> new ArrayList<>()).add(s);
        }
        boolean several = byScheduler.size() > 1;
        boolean exactRunning = !model.runs.isEmpty();
        if (exactRunning) {
            counters.add(runningFromRuns());
        }
        for (Map.Entry<String, List<TraceModel.SchedSample>> e : byScheduler.entrySet()) {
            String suffix = several ? " (" + e.getKey() + ")" : "";
            List<TraceModel.SchedSample> samples = e.getValue();
            counters.add(series("Runnable" + suffix, "runnable", samples, TraceModel.SchedSample::runnable));
            if (!exactRunning) {
                counters.add(series("Running" + suffix, "running", samples, s -> s.procs() - s.idleProcs()));
            }
            counters.add(series("Carriers" + suffix, "carriers", samples, TraceModel.SchedSample::carriers));
            counters.add(series("Spinning carriers" + suffix, "spinning", samples,
                    TraceModel.SchedSample::spinningCarriers));
        }
    }

    /** A sweep over every run's start and end, sorted as primitives (there can be millions). */
    private Counter runningFromRuns() {
        int n = 0;
        for (Lane lane : procLanes) {
            n += lane.slices.size();
        }
        long[] starts = new long[n];
        long[] ends = new long[n];
        int runs = 0;
        for (Lane lane : procLanes) {
            for (Slice s : lane.slices) {
                if (s.kind() == SliceKind.RUN) {
                    starts[runs] = s.start();
                    ends[runs++] = s.end();
                }
            }
        }
        starts = Arrays.copyOf(starts, runs);
        ends = Arrays.copyOf(ends, runs);
        Arrays.sort(starts);
        Arrays.sort(ends);
        long[] times = new long[2 * runs];
        long[] values = new long[2 * runs];
        int points = 0;
        long running = 0;
        int i = 0;
        int j = 0;
        while (i < runs || j < runs) {
            // Everything that happens at one instant makes one point: ends before starts.
            long time = j < runs && (i >= runs || ends[j] <= starts[i]) ? ends[j] : starts[i];
            while (j < runs && ends[j] == time) {
                running--;
                j++;
            }
            while (i < runs && starts[i] == time) {
                running++;
                i++;
            }
            times[points] = time;
            values[points++] = running;
        }
        return new Counter("Running", "running", Arrays.copyOf(times, points), Arrays.copyOf(values, points));
    }

    private static Counter series(String name, String key, List<TraceModel.SchedSample> samples,
                                  java.util.function.ToLongFunction<TraceModel.SchedSample> value) {
        long[] times = new long[samples.size()];
        long[] values = new long[samples.size()];
        for (int i = 0; i < samples.size(); i++) {
            times[i] = samples.get(i).time();
            values[i] = value.applyAsLong(samples.get(i));
        }
        return new Counter(name, key, times, values);
    }
}
