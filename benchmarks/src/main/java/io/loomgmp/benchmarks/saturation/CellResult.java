package io.loomgmp.benchmarks.saturation;

import java.util.List;

/**
 * What one cell measured over its window.
 *
 * @param cell          the cell
 * @param classes       each request class's result, in the order of {@link Cell#classes()}
 * @param workSteps     each request class's CPU work done over the window, in steps of the CPU
 *                      loop (at {@code stepsPerMicro} a µs), counted as it was done, whether or not
 *                      its request ended in the window; in the order of {@link Cell#classes()}
 * @param cpuNanos      the server process's CPU time over the window (every thread of its JVM: the
 *                      handlers, the carriers, Jetty's selectors, the JIT, the GC)
 * @param wallNanos     the window's wall time as the runner measured it, from the stats read before
 *                      the load generators started to the one after they ended
 * @param serverRequests requests the server answered over the window, by its own count (it includes
 *                      answers that came too late for a generator that had stopped)
 * @param targetRate    the open loop's rate, requests per second; 0 for a closed loop
 * @param drainMillis   how long the requests left by the warm-up took to end before the window; -1
 *                      if some still ran at the limit (the window then began with them)
 * @param stepsPerMicro the CPU loop's calibration the server used
 * @param loadAverage   the machine's 1-minute load average when the cell began
 */
record CellResult(Cell cell, List<LoadResult> classes, List<Long> workSteps, long cpuNanos, long wallNanos, long serverRequests,
                  double targetRate, long drainMillis, double stepsPerMicro, double loadAverage) {
    CellResult {
        classes = List.copyOf(classes);
        if (classes.size() != cell.classes().size()) {
            throw new IllegalArgumentException(classes.size() + " results for the " + cell.classes().size() + " classes of " + cell.name());
        }
        workSteps = List.copyOf(workSteps);
        if (workSteps.size() != cell.classes().size()) {
            throw new IllegalArgumentException(workSteps.size() + " counts of work for the " + cell.classes().size()
                    + " classes of " + cell.name());
        }
    }

    /** The cores that class {@code i}'s work kept busy on average over the window: its work's CPU time (as calibrated) over the window. */
    double workCores(int i) {
        return wallNanos <= 0 ? Double.NaN : workSteps.get(i) / stepsPerMicro * 1e3 / wallNanos;
    }

    /** The cores that every class's work kept busy. */
    double workCores() {
        double cores = 0;
        for (int i = 0; i < workSteps.size(); i++) {
            cores += workCores(i);
        }
        return cores;
    }

    /** Class {@code i}'s share of the work of every class in the window; NaN if no work was done. */
    double workShare(int i) {
        long all = workSteps.stream().mapToLong(Long::longValue).sum();
        return all == 0 ? Double.NaN : (double) workSteps.get(i) / all;
    }

    /** Responses of every class over the window, as the load generators counted them. */
    long requests() {
        return classes.stream().mapToLong(LoadResult::requests).sum();
    }

    /** Server CPU time per response, µs, over every class of the cell; NaN without a response. */
    double cpuPerRequestMicros() {
        long requests = requests();
        return requests == 0 ? Double.NaN : cpuNanos / 1e3 / requests;
    }

    /** Cores the server kept busy on average over the window. */
    double cores() {
        return wallNanos <= 0 ? Double.NaN : (double) cpuNanos / wallNanos;
    }

    /** Responses per second of every class together. */
    double requestsPerSecond() {
        return classes.stream().mapToDouble(LoadResult::requestsPerSecond).sum();
    }
}
