package io.loomgmp.benchmarks;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * A benchmark of hand-offs between virtual threads, where JVMTI's virtual-thread transitions cost
 * the most: the JMH parameter {@code jvmtiTransitions} = {@code on} | {@code off} says whether the
 * fork runs with them, checked against the JVM before anything is measured.
 *
 * <p>Any agent (and GMP's forks run with one) makes HotSpot report every mount and unmount of a
 * virtual thread to JVMTI; a JVM without an agent (FJP's forks) pays nothing.
 * {@code -XX:+UnlockExperimentalVMOptions -XX:-DoJVMTIVirtualThreadTransitions} turns that off,
 * as benchmarks of other schedulers do. It is not safe to run with (docs/compatibility.md says
 * why), so the rows measure the tax, not a configuration to deploy. As with the scheduler, JMH
 * cannot vary JVM arguments with a parameter, so the runner
 * ({@link io.loomgmp.benchmarks.runner.BenchRunner}) runs these benchmarks a second time, both
 * schedulers, with {@code -p jvmtiTransitions=off} and those flags in the forks: GMP without the
 * tax against FJP with the same flags (which change nothing for it, as the rows show).
 */
public abstract class HandOffBenchmark extends OnScheduler {
    /** The parameter's name, which the runner looks for to run a benchmark again with {@link #OFF_OPTIONS}. */
    public static final String PARAM = "jvmtiTransitions";
    /** What turns the transitions off, in the order {@code java} needs them. */
    public static final List<String> OFF_OPTIONS = List.of("-XX:+UnlockExperimentalVMOptions",
            "-XX:-DoJVMTIVirtualThreadTransitions");
    public static final String ON = "on";
    public static final String OFF = "off";

    @Param(ON)
    public String jvmtiTransitions;

    @Setup(Level.Trial)
    public void checkTransitions() {
        boolean on = transitionsOn();
        if (!jvmtiTransitions.equals(on ? ON : OFF)) {
            throw new IllegalStateException("jvmtiTransitions=" + jvmtiTransitions + ", but this JVM runs with them "
                    + (on ? ON : OFF) + ": run the off forks with -jvmArgsPrepend \"" + String.join(" ", OFF_OPTIONS)
                    + "\", or use ./loomgmp bench");
        }
    }

    /** HotSpot's own answer; an experimental flag that was not unlocked is not listed, and is at its default, on. */
    static boolean transitionsOn() {
        HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        try {
            return Boolean.parseBoolean(hotSpot.getVMOption("DoJVMTIVirtualThreadTransitions").getValue());
        } catch (IllegalArgumentException notUnlocked) {
            return true;
        }
    }
}
