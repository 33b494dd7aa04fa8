package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * A ring of {@code threads} virtual threads passing one message around through
 * {@link SynchronousQueue}s: member {@code i} takes the message from its own queue and puts it
 * into member {@code i + 1}'s. JMH's benchmark thread, a virtual thread of the scheduler under test
 * ({@code -Djmh.executor=VIRTUAL}), is member 0: it puts the message into member 1's queue and
 * takes it back from its own. The score is one trip around the ring, {@code threads} hops; each
 * hop is one hand-off: the put finds the next member waiting in {@code take} and unparks it, and
 * the sender parks in its own {@code take} (one park and one unpark per hop). Each member adds one
 * to the message, so a trip that skipped a member fails.
 * <ul>
 *   <li>{@code depth}: how deep each member blocks. Its loop runs under {@code depth} frames of a
 *       recursion that the JIT may not inline ({@code 1}: one frame), and {@code SynchronousQueue}'s
 *       own frames are above them, so every park freezes, and every wake-up thaws, a stack that
 *       much deeper (the JDK thaws lazily, a few frames at a time, so the whole stack is not
 *       copied on each wake-up; this measures what it does cost). JMH's thread blocks at the depth
 *       JMH's own frames give it.</li>
 *   <li>{@code mode}: {@code longLived}, members started once per trial that relay the message on
 *       every trip; or {@code perTrip}, {@code threads - 1} members started for each trip, each
 *       relaying the message once and ending: a trip then also costs their start, their first
 *       park (a new member usually reaches its {@code take} before the message does), their end,
 *       and joining them.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Djmh.executor=VIRTUAL")
public class RingBenchmark extends HandOffBenchmark {
    static final String LONG_LIVED = "longLived";
    static final String PER_TRIP = "perTrip";
    /** Sent around once by the tear-down: each long-lived member passes it on and ends. */
    private static final int[] STOP = new int[1];

    /** Members of the ring, JMH's thread included: hops per trip. */
    @Param("1000")
    public int threads;

    @Param({"1", "64"})
    public int depth;

    @Param({LONG_LIVED, PER_TRIP})
    public String mode;

    /** queues[i]: member i's. */
    private SynchronousQueue<int[]>[] queues;
    /** members[i - 1]: member i; member 0 is JMH's thread. */
    private Thread[] members;
    private boolean perTrip;
    private final ThreadFactory factory = Thread.ofVirtual().factory();
    /** The message: a counter of the hops it made, reused by every trip (no allocation per hop). */
    private final int[] message = new int[1];

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked") // an array of a generic type
    public void buildRing() {
        Benchmarks.requireVirtualBenchmarkThread();
        if (threads < 2 || depth < 1) {
            throw new IllegalArgumentException("threads=" + threads + ", depth=" + depth
                    + ": expected a ring of 2 threads or more, blocking 1 frame deep or more");
        }
        perTrip = switch (mode) {
            case LONG_LIVED -> false;
            case PER_TRIP -> true;
            default -> throw new IllegalArgumentException("mode=" + mode + ": expected " + LONG_LIVED + " or "
                    + PER_TRIP);
        };
        queues = (SynchronousQueue<int[]>[]) new SynchronousQueue<?>[threads];
        for (int i = 0; i < threads; i++) {
            queues[i] = new SynchronousQueue<>();
        }
        members = new Thread[threads - 1];
        if (!perTrip) {
            startMembers(true);
        }
    }

    @Benchmark
    public int trip() throws InterruptedException {
        if (perTrip) {
            startMembers(false);
        }
        message[0] = 0;
        queues[1].put(message);
        int[] back = queues[0].take();
        if (back != message || back[0] != threads - 1) {
            throw new IllegalStateException("the message came back after " + back[0] + " hops through members,"
                    + " expected " + (threads - 1));
        }
        if (perTrip) {
            // Untimed: a timed join would arm a timer. A member that never ends fails the
            // iteration through the runner's timeout instead.
            for (Thread member : members) {
                member.join();
            }
        }
        return back[0];
    }

    /** Starts members 1 .. threads - 1: relaying until {@link #STOP}, or relaying once. */
    private void startMembers(boolean relayUntilStopped) {
        for (int i = 1; i < threads; i++) {
            SynchronousQueue<int[]> in = queues[i];
            SynchronousQueue<int[]> out = queues[(i + 1) % threads];
            members[i - 1] = factory.newThread(() -> atDepth(depth, () -> relay(in, out, relayUntilStopped)));
            members[i - 1].start();
        }
    }

    /** Runs {@code body} under {@code frames} frames of this method: the JIT may not inline them away. */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    private static void atDepth(int frames, Runnable body) {
        if (frames <= 1) {
            body.run();
        } else {
            atDepth(frames - 1, body);
        }
    }

    private static void relay(SynchronousQueue<int[]> in, SynchronousQueue<int[]> out, boolean untilStopped) {
        try {
            do {
                int[] message = in.take();
                if (message == STOP) {
                    out.put(STOP);
                    return;
                }
                message[0]++;
                out.put(message);
            } while (untilStopped);
        } catch (InterruptedException e) {
            throw new IllegalStateException("a ring member was interrupted", e);
        }
    }

    /** Members 1 .. threads - 1 (the last started, in {@code perTrip} mode): for tests. */
    Thread[] members() {
        return members.clone();
    }

    /** Sends {@link #STOP} around the ring of long-lived members and joins them. */
    @TearDown(Level.Trial)
    public void stopRing() throws InterruptedException {
        if (!perTrip) {
            queues[1].put(STOP);
            if (queues[0].take() != STOP) {
                throw new IllegalStateException("the ring returned a message instead of its stop signal");
            }
            Benchmarks.join(members, "ring");
        }
    }
}
