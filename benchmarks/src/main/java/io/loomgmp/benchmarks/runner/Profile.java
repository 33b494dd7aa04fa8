package io.loomgmp.benchmarks.runner;

import org.openjdk.jmh.runner.options.TimeValue;

import java.util.Map;

/**
 * How long each benchmark runs, per scheduler: forks, warm-up and measurement iterations. The
 * sizes are the benchmarks' own (1,000,000 skynet leaves, 10,000 sleepers, ...) except in the
 * smoke run, which exists only to show that every benchmark still runs.
 */
public enum Profile {
    /**
     * About 73 minutes on 2 cores (estimated: 64 min 36 s measured for the 112 runs before the 14
     * runs without JVMTI transitions, each about 2 forks × 16 s of iterations plus JVM starts).
     */
    FULL("full", 2, 3, TimeValue.seconds(2), 5, TimeValue.seconds(2), Map.of()),
    /**
     * About 7.5 minutes on 2 cores (estimated: 3 min 41 s for 50 configurations, 126 runs now): one fork, short
     * iterations. Five of them, not three: JMH's error is the 99.9 % interval of Student's t, whose
     * factor falls from 31.6 at 2 degrees of freedom to 8.6 at 4, so three long iterations give
     * error bars too wide to say anything.
     */
    QUICK("quick", 1, 2, TimeValue.milliseconds(500), 5, TimeValue.milliseconds(500), Map.of()),
    /**
     * A user's first second, not the steady state: five fresh JVMs per benchmark and scheduler,
     * no warm-up, five 200 ms iterations each, so that the iterations show the first second as it
     * goes (JMH's log has every fork's and every iteration's score): the JIT compiling GMP's
     * paths, classes initialised late, carriers starting. What a short batch job or a newly
     * started pod sees, and where the full run's warm-up hides the difference.
     */
    FIRST_SECONDS("first-seconds", 5, 0, TimeValue.milliseconds(200), 5, TimeValue.milliseconds(200), Map.of()),
    /**
     * CI: one 100 ms iteration, no warm-up, tiny sizes; the figures mean nothing. About 1 min 20 s
     * for the 52 runs on a loaded 2-core machine (1 min 18 s measured, 8 s of it the floor, ring and
     * timed-park runs), most of it JVM starts.
     */
    SMOKE("smoke", 1, 0, TimeValue.milliseconds(100), 1, TimeValue.milliseconds(100),
            Map.of("leaves", "1000", "children", "1000", "sleepers", "100", "sleeps", "2", "size", "100",
                    "threads", "100", "depth", "64", "parkers", "100"));

    final String label;
    final int forks;
    final int warmupIterations;
    final TimeValue warmupTime;
    final int measurementIterations;
    final TimeValue measurementTime;
    /** JMH parameters that override the benchmarks' defaults (a benchmark without the parameter ignores it). */
    final Map<String, String> params;

    Profile(String label, int forks, int warmupIterations, TimeValue warmupTime, int measurementIterations,
            TimeValue measurementTime, Map<String, String> params) {
        this.label = label;
        this.forks = forks;
        this.warmupIterations = warmupIterations;
        this.warmupTime = warmupTime;
        this.measurementIterations = measurementIterations;
        this.measurementTime = measurementTime;
        this.params = params;
    }

    /** "quick run (1 fork, 2 × 500 ms warm-up, 5 × 500 ms measurement)": per benchmark and scheduler. */
    String describe() {
        return label + " run (" + forks + (forks == 1 ? " fork, " : " forks, ")
                + (warmupIterations == 0 ? "no warm-up, " : warmupIterations + " × " + warmupTime + " warm-up, ")
                + measurementIterations + " × " + measurementTime + " measurement)";
    }
}
