package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * A benchmark whose cost per task may grow with the number of Ps (steal passes, spinners and
 * their wake-ups, sysmon's rounds, the idle-P bookkeeping), measured with more Ps than cores:
 * the JMH parameter {@code procs}, the number of Ps for GMP and the parallelism for
 * ForkJoinPool, the same for both; {@code 0} (the default) is the cores.
 *
 * <p><b>How a fork gets its Ps.</b> Both schedulers take their number of Ps from
 * {@code -Djdk.virtualThreadScheduler.parallelism}, read once when the JVM's virtual-thread
 * scheduler is made, before any benchmark code runs: a parameter read in {@code @Setup} would be
 * too late, and JMH cannot vary JVM arguments with a parameter. So the parameter only names the
 * runs, and the runner ({@link io.loomgmp.benchmarks.runner.BenchRunner} {@code --procs 2,8,32})
 * starts each value's forks, for both schedulers, with {@code -p procs=N} and
 * {@code -Djdk.virtualThreadScheduler.parallelism=N} (in {@code jvmArgsPrepend}, beside the agent,
 * so that a benchmark's own {@code @Fork(jvmArgsAppend = ...)} survives). Each fork checks that
 * its parameter matches its JVM's scheduler before measuring ({@link Schedulers#checkProcs}): the
 * JDK's {@code VirtualThreadSchedulerMXBean}, which the agent makes report GMP's Ps, must say
 * {@code procs} (the cores for 0); a run by hand with {@code -p procs=32} and no JVM argument fails
 * instead of measuring the default under the wrong name. By hand:
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar Skynet -p scheduler=fjp -p procs=32 \
 *      -jvmArgsPrepend -Djdk.virtualThreadScheduler.parallelism=32
 * </pre>
 * Reports leave {@code procs=0} out of a run's name, so that default runs keep theirs.
 *
 * <p>What grows with the shapes' own sizes goes through {@link #PROCS}, which is this fork's
 * parallelism (e.g. the yield storm's 2 × procs threads).
 */
public abstract class OnSchedulerAtProcs extends HandOffBenchmark {
    /** The parameter's name, which the runner looks for to run a benchmark once per number of Ps. */
    public static final String PARAM = "procs";
    /** What both schedulers take their number of Ps (parallelism) from: the JDK's property. */
    public static final String PARALLELISM_PROPERTY = "jdk.virtualThreadScheduler.parallelism";

    /** Ps for GMP and parallelism for ForkJoinPool; 0: the cores. Set with the matching JVM argument (above). */
    @Param("0")
    public int procs;

    @Setup(Level.Trial)
    public void checkProcs() {
        Schedulers.checkProcs(procs);
    }
}
