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
 * record, concurrently.
 *
 * <p>Each name has {@value #STRIPES} HdrHistogram {@link Recorder}s, picked by the recording
 * thread's id, merged when read. A Recorder is wait-free for writers, but every write is a few
 * atomic adds on counters shared by all writers: the Timers benchmark records 100,000 values per
 * operation from both carriers at once, and with one Recorder the cache-line traffic of those adds
 * cost more than the scheduling under test (a third of its time, measured with JFR). Stripes keep
 * the measurement out of the measured.
 */
public final class Latencies {
    /** Recorders per name: a power of two, a few per core. */
    static final int STRIPES = 16;
    private static final ConcurrentMap<String, Stripes> RECORDERS = new ConcurrentHashMap<>();

    private Latencies() {
    }

    /** The recorders of one name. */
    public static final class Stripes {
        private final Recorder[] recorders = new Recorder[STRIPES];

        private Stripes() {
            for (int i = 0; i < STRIPES; i++) {
                recorders[i] = new Recorder(3); // 3 digits: 0.1 % resolution
            }
        }

        private void record(long nanos) {
            recorders[(int) (Thread.currentThread().threadId() & (STRIPES - 1))].recordValue(nanos);
        }

        private Histogram takeInterval() {
            Histogram merged = recorders[0].getIntervalHistogram();
            for (int i = 1; i < STRIPES; i++) {
                merged.add(recorders[i].getIntervalHistogram());
            }
            return merged;
        }
    }

    /** The recorders for {@code name}, in nanoseconds: e.g. "lateness". */
    public static Stripes recorder(String name) {
        return RECORDERS.computeIfAbsent(name, n -> new Stripes());
    }

    /** Records {@code nanos}, clamped at 0 (a wake-up is never early, but a clock step could say so). */
    public static void record(Stripes recorder, long nanos) {
        recorder.record(Math.max(0, nanos));
    }

    /** Each name's values since the previous call (or since it was created), by name. */
    static Map<String, Histogram> takeIntervals() {
        Map<String, Histogram> intervals = new TreeMap<>();
        RECORDERS.forEach((name, recorder) -> intervals.put(name, recorder.takeInterval()));
        return intervals;
    }
}
