package io.loomgmp.demo;

import java.time.Duration;
import java.util.List;

/**
 * Section 2: fairness both ways. Short requests and long ones reach the same server at the same
 * time, past capacity. Do short ones wait behind long ones (GMP's preemption says no), and do long
 * ones still get their share (what preemption costs them)? ({@link example.probes.LoadedServer})
 */
final class ShortBesideLongSection {
    static final long SHORT_MICROS = 100;
    static final long LONG_MICROS = 100_000;
    static final int SHORT_CONNECTIONS_PER_CORE = 16;
    /** More long requests than cores: on a scheduler that never preempts, they can hold every carrier. */
    static final int LONG_CONNECTIONS_PER_CORE = 2;

    private final DemoSizes sizes;
    private final double stepsPerMicro;
    private final int cores;

    ShortBesideLongSection(DemoSizes sizes, double stepsPerMicro, int cores) {
        this.sizes = sizes;
        this.stepsPerMicro = stepsPerMicro;
        this.cores = cores;
    }

    void run(ChildJvm jvms, Report report) throws DemoFailure, InterruptedException {
        int shortConnections = SHORT_CONNECTIONS_PER_CORE * cores;
        int longConnections = LONG_CONNECTIONS_PER_CORE * cores;
        List<String> args = List.of(String.valueOf(stepsPerMicro), String.valueOf(sizes.mixWarmUp().toMillis()),
                String.valueOf(sizes.mixWindow().toMillis()), "short=" + shortConnections + "x" + SHORT_MICROS,
                "long=" + longConnections + "x" + LONG_MICROS);
        Duration bound = sizes.mixWarmUp().plus(sizes.mixWindow()).plusSeconds(60);
        ServerComparison runs = ServerComparison.run(jvms, "short beside long requests", args, bound);

        String window = Figures.seconds(sizes.mixWindow());
        report.section("2. Short work beside long work, both ways", "The same server; at the same time "
                + shortConnections + " connections send short requests (" + Figures.plainMillis(SHORT_MICROS)
                + " ms of CPU) and " + longConnections + " connections long ones (" + Figures.plainMillis(LONG_MICROS)
                + " ms), back to back. GMP preempts a request that computes while others wait (after its 10 ms time"
                + " slice, or 1 ms when work queues for its processor); FJP runs each until it blocks. Measured over "
                + window + " after " + Figures.seconds(sizes.mixWarmUp()) + " of warm-up.");
        report.columns("GMP", "FJP", "GMP/FJP");
        runs.countRow(report, "short requests: answered", "short.answers",
                "short requests answered in the " + window + " window; higher is better.");
        runs.latencyRow(report, "short requests: latency p99 (ms)", "short.p99Micros",
                "how long a short request waits behind long ones; lower is better.");
        runs.latencyRow(report, "short requests: longest wait (ms)",
                "short.longestWaitMicros", "counting those still waiting at the window's end, which p99 misses; lower is"
                        + " better.");
        runs.countRow(report, "short connections with no answer", "short.connectionsUnanswered",
                "of " + shortConnections + ": users of short requests who got nothing in the " + window + " window; 0 is"
                        + " best.");
        runs.countRow(report, "long requests: answered", "long.answers",
                "the long requests' share of the " + window + " window; higher is better, 0 means they starved.");
        runs.latencyRow(report, "long requests: latency p99 (ms)", "long.p99Micros",
                "what letting short ones through costs a long one (few answers: about their slowest); lower is better.");
        runs.coresBusyRow(report, cores);
        runs.carriersNote(report);
        report.flush();
    }
}
