package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.CarrierLocator;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;

/**
 * What a scheduler is built from: the settings {@link GmpScheduler.Builder} checked, immutable.
 * {@code new Scheduling(config)} builds every part from it and starts nothing;
 * {@link Scheduling#start} then starts sysmon and registers for JFR's periodic events.
 *
 * @param threadFactory      makes carrier threads; null: daemon threads named
 *                           {@code <name>-M<n>} ({@link Carriers#defaultFactory})
 * @param sysmon             false in the tests' deterministic mode: no sysmon thread, no rounds
 * @param latencySampleEvery about one task in this many is timed; 0: none
 * @param seams              the tests' faults and stand-ins; {@link TestSeams#NONE} in use
 */
record SchedulerConfig(String name, int procs, int maxCarriers, Duration timeSlice, Duration keepAlive,
                       Thread.UncaughtExceptionHandler exceptionHandler, CarrierLocator carrierLocator,
                       ThreadFactory threadFactory, boolean sysmon, int latencySampleEvery, TestSeams seams) {

    /**
     * For tests that drive the parts by hand (unit tests, jcstress): no sysmon, no latency
     * sampling, carriers found from the current thread, a 10 ms slice and a 10 s keep-alive; a
     * failure is printed to standard error. Such a scheduler is never started.
     */
    static SchedulerConfig inert(String name, int procs, int maxCarriers) {
        return new SchedulerConfig(name, procs, maxCarriers, Duration.ofMillis(10), Duration.ofSeconds(10),
                Failures.PRINT_TO_STANDARD_ERROR, CarrierLocator.CURRENT_THREAD, null, false, 0, TestSeams.NONE);
    }

    /** This config with another keep-alive. */
    SchedulerConfig withKeepAlive(Duration keepAlive) {
        return new SchedulerConfig(name, procs, maxCarriers, timeSlice, keepAlive, exceptionHandler, carrierLocator,
                threadFactory, sysmon, latencySampleEvery, seams);
    }
}
