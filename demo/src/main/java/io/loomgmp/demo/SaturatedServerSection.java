package io.loomgmp.demo;

import java.time.Duration;
import java.util.List;

/**
 * Section 1: a server loaded far past capacity with CPU-bound requests, the case a user adopts
 * virtual threads for. What does a request cost, and how long do the unlucky ones wait?
 * ({@link example.probes.LoadedServer})
 */
final class SaturatedServerSection {
    /** A request's CPU work: long enough to dwarf the loopback I/O, far shorter than GMP's 10 ms time slice. */
    static final long REQUEST_MICROS = 1_000;
    /** Many more requests in flight than cores: the server is saturated whatever the machine. */
    static final int CONNECTIONS_PER_CORE = 50;

    private final DemoSizes sizes;
    private final double stepsPerMicro;
    private final int cores;

    SaturatedServerSection(DemoSizes sizes, double stepsPerMicro, int cores) {
        this.sizes = sizes;
        this.stepsPerMicro = stepsPerMicro;
        this.cores = cores;
    }

    void run(ChildJvm jvms, Report report) throws DemoFailure, InterruptedException {
        int connections = CONNECTIONS_PER_CORE * cores;
        List<String> args = List.of(String.valueOf(stepsPerMicro), String.valueOf(sizes.serverWarmUp().toMillis()),
                String.valueOf(sizes.serverWindow().toMillis()), "req=" + connections + "x" + REQUEST_MICROS);
        Duration bound = sizes.serverWarmUp().plus(sizes.serverWindow()).plusSeconds(60);
        ServerComparison runs = ServerComparison.run(jvms, "saturated server", args, bound);
        ChildOutput gmp = runs.gmp();
        ChildOutput fjp = runs.fjp();

        report.section("1. A saturated server: CPU per request and the tail", connections + " connections over"
                + " loopback TCP to a server with a virtual thread per connection; each connection sends requests of "
                + Figures.plainMillis(REQUEST_MICROS) + " ms of CPU back to back (" + CONNECTIONS_PER_CORE + " per core:"
                + " far past what " + cores + " cores serve). The load generator is platform threads in the same JVM."
                + " Measured over " + Figures.seconds(sizes.serverWindow()) + " after "
                + Figures.seconds(sizes.serverWarmUp()) + " of warm-up.");
        report.columns("GMP", "FJP", "GMP/FJP");
        double gmpRate = perSecond(gmp, "req.answers");
        double fjpRate = perSecond(fjp, "req.answers");
        report.row("requests per second", List.of(Figures.of(gmpRate), Figures.of(fjpRate), Figures.ratio(gmpRate, fjpRate)),
                "answers per second while the server has more work than cores; higher is better.");
        double gmpCpu = cpuMillisPerRequest(gmp);
        double fjpCpu = cpuMillisPerRequest(fjp);
        report.row("CPU per request (ms)", List.of(Figures.of(gmpCpu), Figures.of(fjpCpu), Figures.ratio(gmpCpu, fjpCpu)),
                "the JVM's CPU time (server, load generator, GC, JIT) per answer: the bill; lower is better.");
        runs.latencyRow(report, "latency p50 (ms)", "req.p50Micros",
                "half the answers came faster than this, counted from the send; lower is better.");
        runs.latencyRow(report, "latency p99 (ms)", "req.p99Micros",
                "one answer in 100 came slower: the tail your unluckiest users see; lower is better.");
        runs.latencyRow(report, "longest wait (ms)", "req.longestWaitMicros",
                "the longest wait of any request, answered or still waiting at the window's end; lower is better.");
        runs.countRow(report, "connections with no answer in " + Figures.seconds(sizes.serverWindow()),
                "req.connectionsUnanswered", "users who got nothing in the whole window (the percentiles miss them); 0 is"
                        + " best.");
        runs.coresBusyRow(report, cores);
        runs.carriersNote(report);
        report.flush();
    }

    private static double perSecond(ChildOutput run, String answersKey) throws DemoFailure {
        return run.number(answersKey) * 1_000 / run.number("windowMillis");
    }

    private static double cpuMillisPerRequest(ChildOutput run) throws DemoFailure {
        double answers = run.number("answers");
        if (answers == 0) {
            throw new DemoFailure(run.title() + " answered no request in its window");
        }
        return run.number("cpuNanos") / answers / 1e6;
    }
}
