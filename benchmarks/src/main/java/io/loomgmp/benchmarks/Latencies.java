package io.loomgmp.benchmarks;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Latency histograms that benchmarks record into (timer lateness, probe and request latency),
 * by name; {@link LatencyProfiler} reports each as percentiles per iteration. Any thread may
 * record, concurrently: an HdrHistogram {@link Recorder} is wait-free for writers.
 */
public final class Latencies {
    private static final ConcurrentMap<String, Recorder> RECORDERS = new ConcurrentHashMap<>();

    private Latencies() {
    }

    /** The recorder for {@code name}, in nanoseconds: e.g. "lateness". */
    public static Recorder recorder(String name) {
        return RECORDERS.computeIfAbsent(name, n -> new Recorder(3)); // 3 digits: 0.1 % resolution
    }

    /** Records {@code nanos}, clamped at 0 (a wake-up is never early, but a clock step could say so). */
    public static void record(Recorder recorder, long nanos) {
        recorder.recordValue(Math.max(0, nanos));
    }

    /** Each recorder's values since the previous call (or since it was created), by name. */
    static Map<String, Histogram> takeIntervals() {
        Map<String, Histogram> intervals = new TreeMap<>();
        RECORDERS.forEach((name, recorder) -> intervals.put(name, recorder.getIntervalHistogram()));
        return intervals;
    }
}
