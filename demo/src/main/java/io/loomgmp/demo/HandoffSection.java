package io.loomgmp.demo;

import java.time.Duration;
import java.util.List;

/**
 * Section 4: what a scheduler costs when virtual threads do little but wake each other
 * ({@link Workloads}), on GMP and on FJP.
 */
final class HandoffSection {
    static final Duration BOUND = Duration.ofSeconds(90);

    private final DemoSizes sizes;

    HandoffSection(DemoSizes sizes) {
        this.sizes = sizes;
    }

    void run(ChildJvm jvms, Report report) throws DemoFailure, InterruptedException {
        List<Scheduler> columns = List.of(Scheduler.GMP, Scheduler.FJP);
        ChildOutput[] runs = new ChildOutput[columns.size()];
        for (int i = 0; i < runs.length; i++) {
            runs[i] = jvms.run(columns.get(i), "hand-off workloads", Workloads.class, sizes.workloadsArgs(), BOUND);
            columns.get(i).checkCarriers(runs[i].title(), runs[i].text("carriers"));
        }
        long threads = (long) runs[0].number("fanoutThreads");

        report.section("4. Hand-off cost: virtual threads that do little but wake each other", "A JVM per column;"
                + " each figure is the median of its runs after a warm-up run.");
        report.columns("GMP", "FJP", "GMP/FJP");
        row(report, "ping-pong round trip (ns)", runs, "pingpongNanos",
                "two virtual threads pass a token back and forth (SynchronousQueue); lower is better.");
        row(report, String.format("fan-out of %,d virtual threads (ms)", threads), runs, "fanoutMillis",
                "one virtual thread starts them all (each does almost nothing) and waits; lower is better.");
        report.note("Part of GMP's cost here is the agent's, not the scheduler's: any -javaagent makes the JVM");
        report.note("  report every virtual-thread mount and unmount to JVMTI, which FJP without an agent does not pay");
        report.note("  (about a third of a round trip; docs/compatibility.md, \"The JVMTI tax\").");
        report.flush();
    }

    private static void row(Report report, String label, ChildOutput[] runs, String key, String explanation)
            throws DemoFailure {
        double gmp = runs[0].number(key);
        double fjp = runs[1].number(key);
        report.row(label, List.of(Figures.of(gmp), Figures.of(fjp), Figures.ratio(gmp, fjp)), explanation);
    }
}
