package io.loomgmp.demo;

import example.probes.FairnessProbe;
import example.probes.PinnedProbe;

import java.time.Duration;
import java.util.List;

/**
 * Section 3: every carrier taken, by pinning ({@link PinnedProbe}) or by CPU hogs
 * ({@link FairnessProbe}): does a new virtual thread still run? GMP's sysmon hands a blocked
 * carrier's processor to another carrier, and preempts hogs; FJP waits for them.
 */
final class PinnedSection {
    /** Hogs per core in the fairness probe: more than the carriers, so taking turns matters. */
    static final int HOGS_PER_CORE = 4;
    static final Duration BOUND = Duration.ofSeconds(60);

    void run(ChildJvm jvms, Report report) throws DemoFailure, InterruptedException {
        // The FIFO probe blocks carriers in a native read, which sysmon sees only through Linux's /proc.
        boolean linux = System.getProperty("os.name").startsWith("Linux");
        ChildOutput gmpClinit = jvms.run(Scheduler.GMP, "pinned probe (class initialiser)", PinnedProbe.class,
                List.of("clinit"), BOUND);
        ChildOutput fjpClinit = jvms.run(Scheduler.FJP, "pinned probe (class initialiser)", PinnedProbe.class,
                List.of("clinit"), BOUND);
        ChildOutput gmpFifo = null;
        ChildOutput fjpFifo = null;
        if (linux) {
            gmpFifo = jvms.run(Scheduler.GMP, "pinned probe (FIFO)", PinnedProbe.class, List.of("fifo"), BOUND);
            fjpFifo = jvms.run(Scheduler.FJP, "pinned probe (FIFO)", PinnedProbe.class, List.of("fifo"), BOUND);
        }
        String hogs = String.valueOf(HOGS_PER_CORE);
        ChildOutput gmpHogs = jvms.run(Scheduler.GMP, "fairness probe", FairnessProbe.class, List.of(hogs), BOUND);
        ChildOutput fjpHogs = jvms.run(Scheduler.FJP, "fairness probe", FairnessProbe.class, List.of(hogs), BOUND);

        report.section("3. Every carrier taken: does a new virtual thread still run?", "Each row is a JVM per"
                + " scheduler in which every carrier is held, by pinning or by CPU-bound virtual threads (hogs), while"
                + " new virtual threads start. GMP's sysmon hands a blocked carrier's processor to another carrier and"
                + " preempts hogs; FJP waits for them.");
        report.columns("GMP", "FJP", "GMP/FJP");
        pinnedRow(report, "pinned in a class initialiser: new thread (ms)", gmpClinit, fjpClinit,
                "every carrier pinned " + PinnedProbe.BLOCK_MILLIS + " ms in a class initialiser: how soon a new"
                        + " virtual thread runs; lower is better.");
        if (linux) {
            pinnedRow(report, "blocked reading a FIFO: new thread (ms)", gmpFifo, fjpFifo,
                    "the same, every carrier blocked " + PinnedProbe.BLOCK_MILLIS + " ms reading a FIFO in native"
                            + " code; lower is better.");
        } else {
            report.note("(no FIFO row: native blocking is detected on Linux only)");
        }
        String bound = FairnessProbe.HOG_BOUND.toSeconds() + " s";
        hogsRow(report, HOGS_PER_CORE + " CPU hogs per core: sleep(1) late by (ms)", gmpHogs, fjpHogs,
                "sleepsFinishedWhileHogsRan", "worstLatenessMicros",
                "worst lateness of " + FairnessProbe.SLEEPS + " x sleep(1 ms) beside the hogs; starved: only after"
                        + " the hogs stopped (" + bound + ").");
        hogsRow(report, HOGS_PER_CORE + " CPU hogs per core: new thread (ms)", gmpHogs, fjpHogs,
                "freshThreadsRanWhileHogsRan", "freshThreadMicros",
                "how soon a virtual thread started beside the hogs runs (worst of " + FairnessProbe.FRESH_THREADS
                        + "); lower is better.");
        report.flush();
    }

    private static void pinnedRow(Report report, String label, ChildOutput gmp, ChildOutput fjp, String explanation)
            throws DemoFailure {
        double g = gmp.number("probeMicros");
        double f = fjp.number("probeMicros");
        report.row(label, List.of(Figures.millis(g), Figures.millis(f), Figures.ratio(g, f)), explanation);
    }

    /** The probe's figure, or "starved" where its part did not finish while the hogs spun. */
    private static void hogsRow(Report report, String label, ChildOutput gmp, ChildOutput fjp, String finishedKey,
                                String microsKey, String explanation) throws DemoFailure {
        double g = gmp.flag(finishedKey) ? gmp.number(microsKey) : -1;
        double f = fjp.flag(finishedKey) ? fjp.number(microsKey) : -1;
        report.row(label, List.of(g < 0 ? "starved" : Figures.millis(g), f < 0 ? "starved" : Figures.millis(f),
                Figures.ratio(g, f)), explanation);
    }
}
