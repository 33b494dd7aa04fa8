package io.loomgmp.trace;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.time.Instant;

/**
 * Writes a {@link Timeline} as Chrome Trace Event JSON, which Perfetto (ui.perfetto.dev) and
 * {@code chrome://tracing} open directly. The layout follows {@code go tool trace}:
 * <ul>
 *   <li>process "Stats" (pid 1): counters ({@code "ph":"C"}) Running, Runnable, Carriers,
 *       Spinning carriers;</li>
 *   <li>process "Procs" (pid 2): one thread per P named "Proc N" (tid N) with the runs as complete
 *       slices ({@code "X"}, named by virtual thread) and steals, honoured preemptions and wake-ups
 *       as thread instants ({@code "i"}); a "Sysmon" thread with preemption requests and
 *       hand-offs; "Other threads" for wake-ups from threads without a P;</li>
 *   <li>process "Carriers" (pid 3): one thread per carrier with its parks, spins and blocked
 *       time;</li>
 *   <li>flow events ({@code "s"} at the wake-up, {@code "f"} with {@code "bp":"e"} at the start
 *       of the run it caused) drawn as arrows.</li>
 * </ul>
 * {@code ts} and {@code dur} are microseconds from the first event, written with nanosecond
 * decimals; {@code displayTimeUnit} is "ns". One event per line, so the file streams and diffs.
 */
final class ChromeTraceWriter {
    private final Timeline timeline;
    private final TraceModel model;
    private final Writer out;
    private final StringBuilder line = new StringBuilder(256);
    private final long progressEvery;
    private final PrintStream progress;
    private boolean first = true;
    long eventsWritten;

    /** Progress goes to progress every progressEvery trace events. */
    ChromeTraceWriter(Timeline timeline, Writer out, long progressEvery, PrintStream progress) {
        this.timeline = timeline;
        this.model = timeline.model;
        this.out = out;
        this.progressEvery = progressEvery;
        this.progress = progress;
    }

    void write() throws IOException {
        out.write("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"loom-gmp trace\",\"recording\":");
        out.write(Json.string(model.source));
        out.write(",\"start\":");
        out.write(Json.string(Instant.ofEpochSecond(0, timeline.origin).toString()));
        out.write("},\n\"traceEvents\":[\n");
        writeMetadata();
        for (Timeline.Lane lane : timeline.procSectionLanes()) {
            writeLane(lane);
        }
        for (Timeline.Lane lane : timeline.carrierLanes) {
            writeLane(lane);
        }
        for (Timeline.Flow flow : timeline.flows) {
            writeFlow(flow);
        }
        for (Timeline.Counter counter : timeline.counters) {
            writeCounter(counter);
        }
        out.write("\n]}\n");
        out.flush();
    }

    private void writeMetadata() throws IOException {
        process(Timeline.Section.STATS, 0);
        process(Timeline.Section.PROCS, 1);
        if (!timeline.carrierLanes.isEmpty()) {
            process(Timeline.Section.CARRIERS, 2);
        }
        for (Timeline.Lane lane : timeline.procSectionLanes()) {
            thread(lane);
        }
        for (Timeline.Lane lane : timeline.carrierLanes) {
            thread(lane);
        }
    }

    private void process(Timeline.Section section, int sortIndex) throws IOException {
        begin("M", "process_name", section.pid, 0);
        line.append(",\"args\":{\"name\":");
        Json.string(line, section.title).append("}}");
        emit();
        begin("M", "process_sort_index", section.pid, 0);
        line.append(",\"args\":{\"sort_index\":").append(sortIndex).append("}}");
        emit();
    }

    private void thread(Timeline.Lane lane) throws IOException {
        begin("M", "thread_name", lane.section.pid, lane.tid);
        line.append(",\"args\":{\"name\":");
        Json.string(line, lane.name).append("}}");
        emit();
        begin("M", "thread_sort_index", lane.section.pid, lane.tid);
        line.append(",\"args\":{\"sort_index\":").append(lane.sortIndex).append("}}");
        emit();
    }

    private void writeLane(Timeline.Lane lane) throws IOException {
        for (Timeline.Slice slice : lane.slices) {
            writeSlice(lane, slice);
        }
        for (Timeline.Mark mark : lane.marks) {
            writeMark(lane, mark);
        }
    }

    private void writeSlice(Timeline.Lane lane, Timeline.Slice slice) throws IOException {
        switch (slice.kind()) {
            case RUN -> {
                TraceModel.Run r = (TraceModel.Run) slice.event();
                begin("X", Describe.virtualThread(r.virtualThread()), lane.section.pid, lane.tid);
                timed(slice, "run");
                String note = slice.cut() ? Describe.cutRun(slice.duration(), r.duration()) : null;
                args("virtual thread", r.virtualThread(), "P", r.processor(), "carrier",
                        model.threadName(r.carrier()), "source", r.source(), "end", r.end(),
                        "note", note);
            }
            case BLOCKED -> {
                TraceModel.Run r = (TraceModel.Run) slice.event();
                begin("X", Describe.virtualThread(r.virtualThread()) + " blocked (P handed off)",
                        lane.section.pid, lane.tid);
                timed(slice, "blocked");
                args("virtual thread", r.virtualThread(), "P", r.processor(), "source", r.source(), "end", r.end());
            }
            case PARK -> {
                begin("X", "park", lane.section.pid, lane.tid);
                timed(slice, "carrier");
                args("duration", Describe.duration(slice.duration()));
            }
            case SPIN -> {
                TraceModel.CarrierSpin s = (TraceModel.CarrierSpin) slice.event();
                begin("X", s.foundWork() ? "spin (found work)" : "spin", lane.section.pid, lane.tid);
                timed(slice, "carrier");
                args("P", s.processor(), "found work", s.foundWork(), "duration", Describe.duration(s.duration()));
            }
            case WAKE_ANCHOR -> {
                TraceModel.Wake w = (TraceModel.Wake) slice.event();
                begin("X", Describe.wake(w), lane.section.pid, lane.tid);
                timed(slice, "wake");
                args("virtual thread", w.virtualThread(), "placement", w.placement(), "waker",
                        model.threadName(w.waker()));
            }
        }
        emit();
    }

    private void writeMark(Timeline.Lane lane, Timeline.Mark mark) throws IOException {
        switch (mark.kind()) {
            case STEAL -> {
                TraceModel.Steal s = (TraceModel.Steal) mark.event();
                instant(lane, mark, Describe.steal(s), "steal");
                args("thief", s.thief(), "victim", s.victim(), "tasks", s.tasks());
            }
            case PREEMPT_REQUESTED, PREEMPT_HONOURED -> {
                TraceModel.Preempt p = (TraceModel.Preempt) mark.event();
                instant(lane, mark, Describe.preempt(p), "preempt");
                args("P", p.processor(), "action", p.action(), "carrier", model.threadName(p.carrier()),
                        "time slice", Describe.duration(p.sliceNanos()));
            }
            case HANDOFF -> {
                TraceModel.Handoff h = (TraceModel.Handoff) mark.event();
                instant(lane, mark, Describe.handoff(model, h), "handoff");
                args("P", h.processor(), "from carrier", model.threadName(h.fromCarrier()), "to carrier",
                        h.toCarrier() == 0 ? "new carrier" : model.threadName(h.toCarrier()),
                        "blocked for", Describe.duration(h.blockedNanos()));
            }
            case WAKE -> {
                TraceModel.Wake w = (TraceModel.Wake) mark.event();
                instant(lane, mark, Describe.wake(w), "wake");
                args("virtual thread", w.virtualThread(), "placement", w.placement(), "waker",
                        model.threadName(w.waker()));
            }
        }
        emit();
    }

    private void instant(Timeline.Lane lane, Timeline.Mark mark, String name, String category) {
        begin("i", name, lane.section.pid, lane.tid);
        line.append(",\"cat\":\"").append(category).append("\",\"s\":\"t\",\"ts\":");
        Json.micros(line, mark.time() - timeline.origin);
    }

    private void writeFlow(Timeline.Flow flow) throws IOException {
        begin("s", "wake", flow.from().section.pid, flow.from().tid);
        line.append(",\"cat\":\"wake\",\"id\":").append(flow.id()).append(",\"ts\":");
        Json.micros(line, flow.fromTime() - timeline.origin).append('}');
        emit();
        begin("f", "wake", flow.to().section.pid, flow.to().tid);
        line.append(",\"cat\":\"wake\",\"id\":").append(flow.id()).append(",\"bp\":\"e\",\"ts\":");
        Json.micros(line, flow.toTime() - timeline.origin).append('}');
        emit();
    }

    private void writeCounter(Timeline.Counter counter) throws IOException {
        long[] times = counter.times();
        long[] values = counter.values();
        for (int i = 0; i < times.length; i++) {
            begin("C", counter.name(), Timeline.Section.STATS.pid, 0);
            line.append(",\"ts\":");
            Json.micros(line, times[i] - timeline.origin);
            line.append(",\"args\":{");
            Json.string(line, counter.key()).append(':').append(values[i]).append("}}");
            emit();
        }
    }

    private void begin(String phase, String name, int pid, long tid) {
        line.setLength(0);
        line.append("{\"ph\":\"").append(phase).append("\",\"name\":");
        Json.string(line, name);
        line.append(",\"pid\":").append(pid).append(",\"tid\":").append(tid);
    }

    private void timed(Timeline.Slice slice, String category) {
        line.append(",\"cat\":\"").append(category).append("\",\"ts\":");
        Json.micros(line, slice.start() - timeline.origin);
        line.append(",\"dur\":");
        Json.micros(line, slice.duration());
    }

    /** Appends ,"args":{...} and closes the event; values are strings, numbers or booleans; nulls are left out. */
    private void args(Object... keysAndValues) {
        line.append(",\"args\":{");
        boolean firstArg = true;
        for (int i = 0; i < keysAndValues.length; i += 2) {
            Object value = keysAndValues[i + 1];
            if (value == null) {
                continue;
            }
            if (!firstArg) line.append(',');
            firstArg = false;
            Json.string(line, (String) keysAndValues[i]).append(':');
            if (value instanceof String s) {
                Json.string(line, s);
            } else {
                line.append(value);
            }
        }
        line.append("}}");
    }

    private void emit() throws IOException {
        if (!first) {
            out.write(",\n");
        }
        first = false;
        out.append(line);
        if (++eventsWritten % progressEvery == 0) {
            progress.printf("loomgmp trace: wrote %,d trace events to trace.json%n", eventsWritten);
        }
    }
}
