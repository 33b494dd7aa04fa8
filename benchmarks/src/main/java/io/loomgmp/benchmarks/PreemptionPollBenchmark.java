package io.loomgmp.benchmarks;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.loom.PendingPreemptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * What a preemption poll costs in a CPU-bound loop when no preemption is requested, which is
 * the case at nearly every back-edge: the same loop without a poll and with
 * {@link Gmp#checkpoint()} exactly where the agent puts it, immediately before the {@code goto}
 * that closes the loop (javac compiles each {@code *Polled} loop to
 * {@code ... iinc; invokestatic Gmp.checkpoint; goto head}, the agent's output for the plain one
 * until it wrote guarded polls), and with the guarded poll the agent now writes at the loop's
 * header: each {@code *Guarded} loop starts with {@code if (PendingPreemptions.count != 0)
 * Gmp.checkpoint();}, which javac compiles to {@code head: getstatic count; ifeq over;
 * invokestatic Gmp.checkpoint; over: ...}, the agent's output for a loop not closed by a
 * {@code goto} (a do-while), and with the same guard at the bottom: each {@code *GuardedAtEnd}
 * loop ends with it, {@code ... getstatic count; ifeq L; invokestatic Gmp.checkpoint; L: goto
 * head}, which C2 compiles as it does the agent's poll in place of a {@code goto} back-edge,
 * {@code getstatic count; ifeq head; invokestatic Gmp.checkpoint; goto head}. (The agent leaves
 * loom-gmp's own classes alone, these too, so each loop has only the poll written here.)
 * <ul>
 *   <li>{@code sum*}: summing an int array, a loop the JIT unrolls and vectorises; the poll's
 *       volatile read may cost it those optimisations, which is part of the poll's price.</li>
 *   <li>{@code xorshift*}: Marsaglia's xorshift64, a chain of dependent shifts and xors that the
 *       JIT can neither vectorise nor fold across iterations; the poll's load and branch sit off
 *       that chain. (Not a linear congruential generator: after unrolling, C2 rewrites
 *       {@code (x*M + C)*M + C} as {@code x*M*M + (C*M + C)}, so that chain collapses, and
 *       differently with a poll, whose slow path keeps each intermediate value live.)</li>
 * </ul>
 * Each invocation runs {@code size} iterations, so the poll's cost per back-edge is
 * (polled - plain) / size. The loops keep their bounds in locals: in a loop that reads a field
 * each iteration the poll's volatile read also keeps the JIT from hoisting that read, a further
 * cost these loops leave out. Run: {@code ./loomgmp bench PreemptionPoll}. Under the agent
 * ({@code scheduler=gmp}) sysmon runs beside the loop; no request is ever open, since no virtual
 * thread holds a P, so both forks measure the poll's fast path.
 *
 * <p>{@code openRequest=another}: a request for some other carrier's P is open for the whole
 * trial (the benchmark holds {@code PendingPreemptions.count} at 1 and its hint at another
 * thread, as sysmon leaves them while it waits for the asked task to reach a poll; under
 * saturation that is about a tenth of the time). Every poll's
 * first step then passes, and the cost measured is its second: whether this carrier was asked,
 * which must be a few loads and no call. (Before it was, each turn called the slow path, and a
 * saturated server's CPU-bound loops ran at half speed.)
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PreemptionPollBenchmark extends OnScheduler {
    @Param("1000")
    int size;

    /** {@code none}: no request open anywhere; {@code another}: one open for another carrier's P. */
    @Param({"none", "another"})
    String openRequest;

    private int[] values;
    private long seed;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        values = random.ints(size).toArray();
        seed = random.nextLong() | 1; // non-zero (xorshift's fixed point); a field, so it is not a constant
        if (openRequest.equals("another")) {
            // As sysmon leaves them while the carrier it asked has not reached a poll yet (this
            // fork's only writer: no virtual thread holds a P here, so sysmon asks nobody).
            PendingPreemptions.count++;
            PendingPreemptions.asked = Thread.ofPlatform().unstarted(() -> { }); // some other carrier
        }
    }

    @TearDown
    public void tearDown() {
        if (openRequest.equals("another")) {
            PendingPreemptions.count--;
            PendingPreemptions.asked = PendingPreemptions.LOOK_UP;
        }
    }

    @Benchmark
    public int sum() {
        int[] a = values;
        int sum = 0;
        int i = 0;
        while (i < a.length) {
            sum += a[i];
            i++;
        }
        return sum;
    }

    @Benchmark
    public int sumPolled() {
        int[] a = values;
        int sum = 0;
        int i = 0;
        while (i < a.length) {
            sum += a[i];
            i++;
            Gmp.checkpoint();
        }
        return sum;
    }

    @Benchmark
    public int sumGuarded() {
        int[] a = values;
        int sum = 0;
        int i = 0;
        for (;;) {
            if (PendingPreemptions.count != 0) {
                Gmp.checkpoint();
            }
            if (i >= a.length) {
                break;
            }
            sum += a[i];
            i++;
        }
        return sum;
    }

    @Benchmark
    public int sumGuardedAtEnd() {
        int[] a = values;
        int sum = 0;
        int i = 0;
        while (i < a.length) {
            sum += a[i];
            i++;
            if (PendingPreemptions.count != 0) {
                Gmp.checkpoint();
            }
        }
        return sum;
    }

    @Benchmark
    public long xorshift() {
        long x = seed;
        int n = size;
        int i = 0;
        while (i < n) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            i++;
        }
        return x;
    }

    @Benchmark
    public long xorshiftPolled() {
        long x = seed;
        int n = size;
        int i = 0;
        while (i < n) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            i++;
            Gmp.checkpoint();
        }
        return x;
    }

    @Benchmark
    public long xorshiftGuarded() {
        long x = seed;
        int n = size;
        int i = 0;
        for (;;) {
            if (PendingPreemptions.count != 0) {
                Gmp.checkpoint();
            }
            if (i >= n) {
                break;
            }
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            i++;
        }
        return x;
    }

    @Benchmark
    public long xorshiftGuardedAtEnd() {
        long x = seed;
        int n = size;
        int i = 0;
        while (i < n) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            i++;
            if (PendingPreemptions.count != 0) {
                Gmp.checkpoint();
            }
        }
        return x;
    }
}
