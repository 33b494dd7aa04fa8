package io.loomgmp.dispatcher;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SequencedMap;

/**
 * Scheduling latency: how long tasks waited, runnable, between being queued and a carrier
 * starting them (Go's {@code /sched/latencies:seconds}), cumulative since the scheduler started.
 * Only sampled tasks are timed, about one in {@link #sampleEvery}, so the counts are those of the
 * samples, not of all tasks.
 *
 * <p>By source, where the task waited: the queue its carrier took it from, under the names of
 * the {@code loomgmp.Run} event's sources (a task moved from a ring to the global queue by an
 * overflow counts where it was found), except {@code timer}, a task a timer made runnable
 * (a sleep or timeout that expired), timed from the timer's due time wherever it then waited:
 * <ul>
 *   <li>{@code runnext}: handed off by the task that ran before it on that P;</li>
 *   <li>{@code local}: the P's ring;</li>
 *   <li>{@code global}: the global queue, taken when the P had nothing local (outside submissions,
 *       overflows, yielded tasks);</li>
 *   <li>{@code fairness}: the global queue, taken ahead of local work (the fairness tick, or ready
 *       work that had waited 200 µs);</li>
 *   <li>{@code stolen}: taken from another P;</li>
 *   <li>{@code timer}: as above.</li>
 * </ul>
 *
 * @param sampleEvery about one task in this many is timed; 1: every task; 0: none (off)
 * @param all         every source together
 * @param bySource    one histogram per name of {@link #SOURCES}, in that order
 */
public record LatencyTotals(int sampleEvery, LatencyHistogram all, SequencedMap<String, LatencyHistogram> bySource) {
    /** The sources, in the order of {@link #bySource}. */
    public static final List<String> SOURCES = Arrays.stream(RunSource.ALL).map(s -> s.label).toList();

    /** From one histogram per {@link RunSource}, by ordinal. */
    static LatencyTotals of(int sampleEvery, LatencyHistogram[] bySource) {
        SequencedMap<String, LatencyHistogram> map = new LinkedHashMap<>();
        LatencyHistogram all = LatencyHistogram.EMPTY;
        for (RunSource source : RunSource.ALL) {
            map.put(source.label, bySource[source.ordinal()]);
            all = all.plus(bySource[source.ordinal()]);
        }
        return new LatencyTotals(sampleEvery, all, map);
    }

    /**
     * @throws IllegalArgumentException unless {@code bySource} has exactly the {@link #SOURCES}
     */
    public LatencyTotals {
        Objects.requireNonNull(all, "all");
        if (!List.copyOf(bySource.keySet()).equals(SOURCES)) {
            throw new IllegalArgumentException("expected the sources " + SOURCES + " in order, got " + bySource.keySet());
        }
        bySource = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(bySource));
    }

    /**
     * The histogram of one source.
     *
     * @throws IllegalArgumentException if {@code source} is not one of {@link #SOURCES}
     */
    public LatencyHistogram source(String source) {
        LatencyHistogram histogram = bySource.get(source);
        if (histogram == null) {
            throw new IllegalArgumentException("no latency source \"" + source + "\"; the sources are " + SOURCES);
        }
        return histogram;
    }

    /** The latencies recorded since {@code earlier}, a snapshot of the same scheduler taken before this one. */
    public LatencyTotals minus(LatencyTotals earlier) {
        SequencedMap<String, LatencyHistogram> map = new LinkedHashMap<>();
        for (Map.Entry<String, LatencyHistogram> e : bySource.entrySet()) {
            map.put(e.getKey(), e.getValue().minus(earlier.source(e.getKey())));
        }
        return new LatencyTotals(sampleEvery, all.minus(earlier.all), map);
    }
}
