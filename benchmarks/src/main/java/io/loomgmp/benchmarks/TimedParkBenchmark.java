package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Timed parks cancelled by an unpark: {@code parkers} virtual threads each park with
 * {@code LockSupport.parkNanos(Long.MAX_VALUE)}, and as many partners each call
 * {@link Thread#yield()} in a loop until their parker is {@code TIMED_WAITING}, then unpark it.
 * Unlike {@code park()}, every such park arms a timer (its timeout, however far), and every unpark
 * that ends it cancels that timer: the benchmark measures the timer's arming and cancelling under
 * load, with the partners' yields competing with the parkers for the carriers.
 *
 * <p>One operation is one round: JMH's benchmark thread (a platform thread, outside both
 * schedulers) starts round {@code r}; each partner sees it, yields until its parker is parked,
 * records that it woke it for round {@code r} and unparks it; each parker, woken for round
 * {@code r}, counts down the round's latch and parks again, for round {@code r + 1}. The round
 * ends when every parker has been woken once: {@code parkers} timed parks, each cancelled by an
 * unpark. A parker woken without its partner's record (a spurious wake-up) parks again, as a
 * timed park must; its partner waits for the next round by yielding, so the partners keep the
 * carriers busy between rounds too, as they do in the scenario. The threads live for the
 * whole trial.
 *
 * <p><b>Starvation.</b> A partner yields at most {@value #YIELD_STREAK} times in a row; then it
 * sleeps {@value #BACK_OFF_MILLIS} ms before yielding again, and counts a back-off
 * ({@code ·backOffs}, per iteration). On JDK 25's ForkJoinPool, carriers that run only yielding
 * virtual threads can keep polling the queues those yielders return to and never reach the
 * queue where the other partners and the parkers wait to run (the scan-order problem behind
 * JDK-8373118, "Starvation.java timed out"): without the back-off, a round then never ended (in
 * 3 forks of 8 beside two CPU hogs on a 2-core machine; a thread dump showed both carriers
 * running partners of round 2 while the other partners had not run since round 1 began). A streak of {@value #YIELD_STREAK} is far beyond a fair scheduler's (a partner waits
 * about one pass over the runnable threads, a few yields), so a back-off count above 0 says the
 * scheduler starved a runnable thread, and that round's time includes the back-off.
 *
 * <p>Memory ordering: the benchmark thread writes the round's latch before the round number (both
 * volatile); a partner reads the round number, then writes its parker's record
 * ({@link AtomicIntegerArray}, volatile) before unparking; the parker reads the record, then the
 * latch: each read sees the write before it in that chain, so a parker counts down the latch of
 * the round it was woken for.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TimedParkBenchmark extends HandOffBenchmark {
    /** Yields in a row before a partner backs off: see the class comment. */
    static final int YIELD_STREAK = 10_000;
    static final int BACK_OFF_MILLIS = 1;

    @Param({"1000", "10000"})
    public int parkers;

    /** Every back-off since the trial began. */
    final LongAdder backOffs = new LongAdder();

    private Thread[] parkerThreads;
    private Thread[] partners;
    /** wokenFor[i]: the last round whose unpark partner i gave parker i; written by the partner only. */
    private AtomicIntegerArray wokenFor;
    /** The round the benchmark thread started last; written by it only. */
    private volatile int round;
    private volatile CountDownLatch roundDone;
    private volatile boolean stopped;

    @Setup(Level.Trial)
    public void startPairs() {
        if (parkers < 1) {
            throw new IllegalArgumentException("parkers=" + parkers + ": expected 1 or more");
        }
        wokenFor = new AtomicIntegerArray(parkers);
        parkerThreads = new Thread[parkers];
        partners = new Thread[parkers];
        for (int i = 0; i < parkers; i++) {
            int pair = i;
            parkerThreads[i] = Thread.ofVirtual().name("parker-" + i).start(() -> park(pair));
        }
        for (int i = 0; i < parkers; i++) {
            int pair = i;
            partners[i] = Thread.ofVirtual().name("partner-" + i).start(() -> unparkWhenParked(pair));
        }
    }

    @Benchmark
    public void round(StarvationCounters counters) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(parkers);
        roundDone = done;
        round = round + 1;
        Benchmarks.await(done, "timed parks woken this round");
        counters.backOffs = backOffs.sum() - counters.backOffsBefore;
    }

    /** The partners' back-offs in each iteration, a JMH secondary result ({@code ·backOffs}). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class StarvationCounters {
        /** Back-offs during this iteration. */
        public long backOffs;
        private long backOffsBefore;

        @Setup(Level.Iteration)
        public void reset(TimedParkBenchmark benchmark) {
            backOffsBefore = benchmark.backOffs.sum();
            backOffs = 0;
        }
    }

    /** Parker {@code pair}: parks, timed, until its partner wakes it for the next round; then again. */
    private void park(int pair) {
        int rounds = 0; // the rounds this parker was woken for
        while (true) {
            while (wokenFor.get(pair) == rounds) {
                if (stopped) {
                    return;
                }
                LockSupport.parkNanos(this, Long.MAX_VALUE);
            }
            rounds++;
            roundDone.countDown();
        }
    }

    /** Partner {@code pair}: each round, yields until its parker is parked, then unparks it. */
    private void unparkWhenParked(int pair) {
        Thread parker = parkerThreads[pair];
        for (int r = 1; ; r++) {
            int streak = 0;
            while (round < r) {
                if (stopped) {
                    return;
                }
                streak = yieldOrBackOff(streak);
            }
            while (parker.getState() != Thread.State.TIMED_WAITING) {
                if (stopped) {
                    return;
                }
                streak = yieldOrBackOff(streak);
            }
            wokenFor.set(pair, r);
            LockSupport.unpark(parker);
        }
    }

    /** Yields, or after {@value #YIELD_STREAK} yields in a row sleeps and counts a back-off; the new streak. */
    int yieldOrBackOff(int streak) {
        if (streak < YIELD_STREAK) {
            Thread.yield();
            return streak + 1;
        }
        backOffs.increment();
        try {
            Thread.sleep(BACK_OFF_MILLIS);
        } catch (InterruptedException e) {
            throw new IllegalStateException("a timed-park partner was interrupted", e);
        }
        return 0;
    }

    /** The parkers: for tests. */
    Thread[] parkerThreads() {
        return parkerThreads.clone();
    }

    @TearDown(Level.Trial)
    public void stopPairs() throws InterruptedException {
        stopped = true;
        for (Thread parker : parkerThreads) {
            LockSupport.unpark(parker);
        }
        Benchmarks.join(partners, "timed-park partners");
        Benchmarks.join(parkerThreads, "timed parkers");
    }
}
