package io.loomgmp.dispatcher;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Where tests reach into a scheduler: faults injected at chosen points and stand-ins for what the
 * machine says. Passed in with the {@link SchedulerConfig}, read-only afterwards; {@link #NONE}
 * outside tests. Each is null (or the production value) when unused.
 *
 * @param loopFault       run by each carrier before each task, outside it; what it throws is a
 *                        carrier failure ({@code Carriers.live})
 * @param timerMoveFault  run before each timer move of a shrinking resize ({@code Timers.move})
 * @param allocationFault run where the global queue allocates ({@link GlobalQueue})
 * @param cpuToSpare      stands in for {@link BlockedCheck#cpuToSpare()} (whether this JVM has a
 *                        CPU to spare); null: the real check
 * @param searchSpin      how long a searcher that found nothing waits for work
 *                        ({@link RunLoop#SEARCH_SPIN_NANOS}); a test chooses a longer wait to see
 *                        the spin catch work however the OS schedules it
 */
record TestSeams(Runnable loopFault, Runnable timerMoveFault, Runnable allocationFault, BooleanSupplier cpuToSpare,
                 Duration searchSpin) {
    static final TestSeams NONE = new TestSeams(null, null, null, null, Duration.ofNanos(RunLoop.SEARCH_SPIN_NANOS));
}
