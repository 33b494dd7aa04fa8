package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What every benchmark of the suite shares: the scheduler under test, the JMH parameter
 * {@code scheduler} = {@code gmp} | {@code fjp}, checked against the scheduler this JVM really
 * gives its virtual threads before anything is measured.
 *
 * <p><b>How a fork gets its scheduler.</b> JMH cannot vary JVM arguments with a parameter, so
 * the runner ({@link io.loomgmp.benchmarks.runner.BenchRunner}) runs each benchmark twice: with
 * {@code -p scheduler=gmp} and {@code -javaagent:loom-gmp-agent.jar}, so that every virtual
 * thread (also those that JMH and the JDK start) runs on GMP, as in an application started with
 * the agent; and with {@code -p scheduler=fjp} and no agent, the JDK's ForkJoinPool. It merges
 * the two runs' results. A fork whose parameter does not match its JVM fails before measuring
 * ({@link Schedulers#check}): the suite never silently measures the other scheduler.
 *
 * <p>The iteration counts here are for running the jar by hand; the runner sets its own.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public abstract class OnScheduler {
    @Param({"gmp", "fjp"})
    public String scheduler;

    /**
     * The number of Ps for GMP and the parallelism for ForkJoinPool in this fork: both read
     * {@code -Djdk.virtualThreadScheduler.parallelism}, and both default to the cores. The
     * benchmarks whose work is measured per P ({@link OnSchedulerAtProcs}) get it from the runner
     * with their {@code procs} parameter; the others run with the default.
     */
    protected static final int PROCS = Integer.getInteger(OnSchedulerAtProcs.PARALLELISM_PROPERTY,
            Runtime.getRuntime().availableProcessors());

    @Setup(Level.Trial)
    public void checkScheduler() throws InterruptedException {
        Schedulers.check(scheduler);
    }
}
