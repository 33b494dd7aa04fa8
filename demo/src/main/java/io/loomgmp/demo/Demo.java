package io.loomgmp.demo;

import example.probes.CpuBurn;

import java.util.Locale;

/**
 * {@code ./loomgmp demo [--small]}: what users choose a scheduler for, GMP (the loom-gmp agent)
 * beside the JDK's ForkJoinPool (FJP) on this machine, each workload in a JVM of its own per
 * scheduler: a saturated server ({@link SaturatedServerSection}), short work beside long work
 * ({@link ShortBesideLongSection}), every carrier pinned or hogged ({@link PinnedSection}), and the
 * hand-off cost ({@link HandoffSection}). The tables go to standard output as each section ends,
 * progress to standard error.
 *
 * <p>Figures are printed as measured, once each. A JVM that fails, hangs past its bound or runs on
 * the wrong scheduler stops the demo with status 1 and says why; bad arguments exit with status 2.
 *
 * <p>Usage: {@code java -jar loom-gmp-demo.jar --agent <loom-gmp-agent.jar> [--small]} ({@link DemoOptions}).
 */
public final class Demo {
    private Demo() {
    }

    public static void main(String[] args) throws InterruptedException {
        long start = System.nanoTime();
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (DemoOptions.UsageError e) {
            System.err.println("loom-gmp demo: " + e.getMessage());
            System.err.println(DemoOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.println(DemoOptions.USAGE);
            return;
        }
        DemoSizes sizes = options.small() ? DemoSizes.SMALL : DemoSizes.FULL;
        int cores = Runtime.getRuntime().availableProcessors();
        Report report = new Report(System.out);
        ChildJvm jvms = new ChildJvm(options.agent());

        System.err.println("loom-gmp demo: calibrating the CPU loop the servers' requests run");
        // Measured here, once, and given to every server JVM: both schedulers' requests do the same work.
        double stepsPerMicro = CpuBurn.calibrate();
        report.note("loom-gmp demo: GMP (the loom-gmp agent) beside the JDK's ForkJoinPool (FJP): " + cores
                + " CPUs, JDK " + Runtime.version() + ", " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + ".");
        report.note("Every figure comes from a JVM of its own per scheduler and is printed as measured; GMP/FJP"
                + " is their ratio.");
        report.note("Timings vary from run to run, more on a busy machine: run it again before reading much into a"
                + " ratio near 1.");
        try {
            new SaturatedServerSection(sizes, stepsPerMicro, cores).run(jvms, report);
            new ShortBesideLongSection(sizes, stepsPerMicro, cores).run(jvms, report);
            new PinnedSection().run(jvms, report);
            new HandoffSection(sizes).run(jvms, report);
        } catch (DemoFailure e) {
            report.note("");
            report.note("FAILED: " + e.getMessage());
            report.note("The demo stops here rather than print a figure it did not measure.");
            report.flush();
            System.err.println("loom-gmp demo: " + e.getMessage());
            System.exit(1);
        }
        report.note("");
        report.note(String.format(Locale.ROOT, "The demo took %.1f s.", (System.nanoTime() - start) / 1e9));
        report.flush();
    }
}
