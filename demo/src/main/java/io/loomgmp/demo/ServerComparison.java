package io.loomgmp.demo;

import example.probes.LoadedServer;

import java.time.Duration;
import java.util.List;

/**
 * A {@link LoadedServer} run on GMP and on FJP with the same arguments, each checked to have served
 * its requests on its own scheduler's carriers, and the rows the server sections print from them.
 */
record ServerComparison(ChildOutput gmp, ChildOutput fjp) {
    static ServerComparison run(ChildJvm jvms, String what, List<String> args, Duration bound)
            throws DemoFailure, InterruptedException {
        ChildOutput gmp = jvms.run(Scheduler.GMP, what, LoadedServer.class, args, bound);
        Scheduler.GMP.checkCarriers(gmp.title(), gmp.text("carriers"));
        ChildOutput fjp = jvms.run(Scheduler.FJP, what, LoadedServer.class, args, bound);
        Scheduler.FJP.checkCarriers(fjp.title(), fjp.text("carriers"));
        return new ServerComparison(gmp, fjp);
    }

    /** A latency in µs, printed in ms ("none" when there was no answer). */
    void latencyRow(Report report, String label, String key, String explanation) throws DemoFailure {
        double g = gmp.number(key);
        double f = fjp.number(key);
        report.row(label, List.of(Figures.millis(g), Figures.millis(f), Figures.ratio(g, f)), explanation);
    }

    void countRow(Report report, String label, String key, String explanation) throws DemoFailure {
        double g = gmp.number(key);
        double f = fjp.number(key);
        report.row(label, List.of(Figures.count(g), Figures.count(f), Figures.ratio(g, f)), explanation);
    }

    /** CPU time over wall time: whether the JVM had the cores (on a busy machine other processes take some). */
    void coresBusyRow(Report report, int cores) throws DemoFailure {
        double g = coresBusy(gmp);
        double f = coresBusy(fjp);
        report.row("cores busy", List.of(Figures.of(g), Figures.of(f)), "CPU time over wall time: below " + cores
                + ", the JVM left cores idle or other processes took them.");
    }

    void carriersNote(Report report) throws DemoFailure {
        report.note("carriers: GMP " + gmp.text("carriers") + ", FJP " + fjp.text("carriers"));
    }

    private static double coresBusy(ChildOutput run) throws DemoFailure {
        return run.number("cpuNanos") / (run.number("windowMillis") * 1e6);
    }
}
