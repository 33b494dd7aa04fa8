package io.loomgmp.trace;

import java.util.Locale;

/**
 * The words for things, shared by both writers so that Perfetto and trace.html label a run, a
 * steal or a hand-off the same way.
 */
final class Describe {
    private Describe() {
    }

    static String virtualThread(long id) {
        return id == 0 ? "task" : "VT " + id;
    }

    static String steal(TraceModel.Steal s) {
        return "steal " + s.tasks() + (s.tasks() == 1 ? " task" : " tasks") + " from P" + s.victim();
    }

    static String preempt(TraceModel.Preempt p) {
        return p.requested() ? "preempt request P" + p.processor() : "preempt honoured";
    }

    static String handoff(TraceModel model, TraceModel.Handoff h) {
        return "handoff P" + h.processor() + ": " + model.threadName(h.fromCarrier()) + " → "
                + (h.toCarrier() == 0 ? "a new carrier" : model.threadName(h.toCarrier()));
    }

    static String wake(TraceModel.Wake w) {
        return "wake " + virtualThread(w.virtualThread()) + " → " + w.placement();
    }

    /** The note on a run whose slice was cut because its P moved on (a hand-off, or clock skew). */
    static String cutRun(long onP, long held) {
        return "the P moved on after " + duration(onP) + "; the task held its carrier for " + duration(held);
    }

    /** "p50 80.1 µs, p90 95.0 µs, p99 3.52 ms, max 3.52 ms", or "no waits". */
    static String percentiles(LatencyProfile.Percentiles p) {
        if (p.count() == 0) {
            return "no waits";
        }
        return "p50 " + duration(p.p50()) + ", p90 " + duration(p.p90()) + ", p99 " + duration(p.p99()) + ", max "
                + duration(p.max());
    }

    static String duration(long nanos) {
        if (nanos < 1_000) return nanos + " ns";
        if (nanos < 1_000_000) return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
        if (nanos < 1_000_000_000) return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
