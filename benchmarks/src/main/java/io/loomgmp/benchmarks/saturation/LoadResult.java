package io.loomgmp.benchmarks.saturation;

import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one load generator measured over one measured window, for one request class: the line that
 * wrk's {@code done()} (the script {@code report.lua}) and the open-loop client both print,
 * {@value #PREFIX} followed by {@code key=value} pairs, and its parsing.
 *
 * @param requests      responses received in the window (whatever their status)
 * @param durationMicros the window's length as the generator measured it
 * @param connectErrors  connections that could not be made; likewise reads and writes that failed
 * @param statusErrors   responses with a status of 400 or more
 * @param timeouts       requests that got no answer within the generator's timeout (wrk: whose
 *                       answer came later than that, and which its latencies leave out)
 * @param p50Micros      latency percentiles and the maximum, µs; 0 when no response came
 * @param scheduled      requests the open-loop schedule meant to send in the window; -1 for wrk,
 *                       which sends as fast as answers come
 * @param meanMicros     wrk's mean latency, µs, which its coordinated-omission correction has
 *                       raised (compare {@link #littlesLawMeanMicros}); -1 when not given
 */
record LoadResult(long requests, long durationMicros, long connectErrors, long readErrors, long writeErrors,
                  long statusErrors, long timeouts, long p50Micros, long p99Micros, long p999Micros, long maxMicros,
                  long scheduled, long meanMicros) {
    static final String PREFIX = "SATURATION";
    private static final List<String> KEYS = List.of("requests", "duration_us", "connect_errors", "read_errors",
            "write_errors", "status_errors", "timeouts", "p50_us", "p99_us", "p999_us", "max_us");

    /** Responses per second of the window. */
    double requestsPerSecond() {
        return durationMicros <= 0 ? 0 : requests * 1e6 / durationMicros;
    }

    /**
     * The mean latency of a closed loop by Little's law, µs: each of {@code connections} always has
     * one request out, so the mean is the connections' time over the answers. It is what wrk's mean
     * would be without its correction, plus the time of the requests still out at the end (they
     * count for their time but not as answers: much above it when few answers came, as for the
     * hogs). NaN without answers.
     */
    double littlesLawMeanMicros(int connections) {
        return requests == 0 ? Double.NaN : (double) connections * durationMicros / requests;
    }

    /** Connect, read, write and status errors: every failure but the timeouts. */
    long errors() {
        return connectErrors + readErrors + writeErrors + statusErrors;
    }

    /** The generators' line: {@code SATURATION requests=... max_us=...[ scheduled=...][ mean_us=...]}. */
    String line() {
        StringBuilder line = new StringBuilder(PREFIX);
        long[] values = {requests, durationMicros, connectErrors, readErrors, writeErrors, statusErrors, timeouts,
                p50Micros, p99Micros, p999Micros, maxMicros};
        for (int i = 0; i < KEYS.size(); i++) {
            line.append(' ').append(KEYS.get(i)).append('=').append(values[i]);
        }
        if (scheduled >= 0) {
            line.append(" scheduled=").append(scheduled);
        }
        if (meanMicros >= 0) {
            line.append(" mean_us=").append(meanMicros);
        }
        return line.toString();
    }

    /**
     * The last {@value #PREFIX} line of a generator's output.
     *
     * @throws IllegalArgumentException if there is none, or it lacks a key or has a value that is no number
     */
    static LoadResult parseOutput(String output) {
        String found = null;
        for (String line : output.split("\\R")) {
            if (line.startsWith(PREFIX + " ")) {
                found = line;
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("no line starting with \"" + PREFIX + " \" in the load generator's output");
        }
        return parse(found);
    }

    /** @throws IllegalArgumentException if {@code line} is not a {@link #line()} */
    static LoadResult parse(String line) {
        String[] words = line.strip().split("\\s+");
        if (words.length == 0 || !words[0].equals(PREFIX)) {
            throw new IllegalArgumentException("not a " + PREFIX + " line: " + line);
        }
        Map<String, Long> values = new LinkedHashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("\"" + words[i] + "\" is no key=value in: " + line);
            }
            values.put(words[i].substring(0, eq), number(words[i].substring(eq + 1), words[i], line));
        }
        long[] v = new long[KEYS.size()];
        for (int i = 0; i < KEYS.size(); i++) {
            Long value = values.get(KEYS.get(i));
            if (value == null) {
                throw new IllegalArgumentException("no " + KEYS.get(i) + " in: " + line);
            }
            v[i] = value;
        }
        return new LoadResult(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                values.getOrDefault("scheduled", -1L), values.getOrDefault("mean_us", -1L));
    }

    /** A whole number; Lua may print one as "12.0", and percentiles may be fractional, so those are rounded. */
    private static long number(String text, String word, String line) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException notLong) {
            try {
                double value = Double.parseDouble(text);
                if (!Double.isFinite(value) || value < 0) {
                    throw new IllegalArgumentException("\"" + word + "\" is not a count in: " + line);
                }
                return Math.round(value);
            } catch (NumberFormatException notNumber) {
                throw new IllegalArgumentException("\"" + word + "\" is not a number in: " + line);
            }
        }
    }

    /**
     * The result of latencies recorded in microseconds (the open-loop client's), with its counts.
     * The percentiles are HdrHistogram's ({@code getValueAtPercentile}: the highest value
     * equivalent to the percentile's, 3 significant digits); all 0 for an empty histogram.
     */
    static LoadResult of(Histogram latenciesMicros, long durationMicros, long connectErrors, long readErrors,
                         long writeErrors, long statusErrors, long timeouts, long scheduled) {
        boolean empty = latenciesMicros.getTotalCount() == 0;
        return new LoadResult(latenciesMicros.getTotalCount(), durationMicros, connectErrors, readErrors, writeErrors,
                statusErrors, timeouts,
                empty ? 0 : latenciesMicros.getValueAtPercentile(50),
                empty ? 0 : latenciesMicros.getValueAtPercentile(99),
                empty ? 0 : latenciesMicros.getValueAtPercentile(99.9),
                empty ? 0 : latenciesMicros.getMaxValue(), scheduled,
                empty ? 0 : Math.round(latenciesMicros.getMean()));
    }
}
