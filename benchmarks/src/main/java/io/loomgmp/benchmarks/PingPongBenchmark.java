package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Ping-pong: two virtual threads hand a token back and forth; the score is the time of one round
 * trip. One of the two is JMH's own benchmark thread, a virtual thread of the scheduler under
 * test ({@code -Djmh.executor=VIRTUAL}), so each invocation is exactly one round trip with no
 * batching; the other is an echo thread that lives for the whole trial. Two hand-offs:
 * <ul>
 *   <li>{@code synchronousQueue}: {@code put}/{@code take} through two {@link SynchronousQueue}s;</li>
 *   <li>{@code parkUnpark}: a volatile turn flag with {@link LockSupport#park}/{@code unpark}, the
 *       bare wake-up that every blocking hand-off is built on.</li>
 * </ul>
 * This is the case for GMP's {@code runnext}: the woken thread runs next on the waker's P.
 *
 * <p>{@code procs}: the number of Ps, more than the cores if asked ({@link OnSchedulerAtProcs}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Djmh.executor=VIRTUAL")
public class PingPongBenchmark extends OnSchedulerAtProcs {
    private static final Integer TOKEN = 1;
    private static final Integer STOP = -1;
    private static final int DRIVER_TURN = 0;
    private static final int ECHO_TURN = 1;

    private final SynchronousQueue<Integer> ping = new SynchronousQueue<>();
    private final SynchronousQueue<Integer> pong = new SynchronousQueue<>();
    private Thread queueEcho;

    private volatile int turn = DRIVER_TURN;
    private volatile boolean stopped;
    private volatile Thread driver;
    private Thread parkEcho;

    @Setup(Level.Trial)
    public void startEchoes() {
        Benchmarks.requireVirtualBenchmarkThread();
        queueEcho = Thread.ofVirtual().name("queue-echo").start(() -> {
            try {
                for (Integer token = ping.take(); token != STOP; token = ping.take()) {
                    pong.put(token);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        parkEcho = Thread.ofVirtual().name("park-echo").start(() -> {
            while (true) {
                while (turn != ECHO_TURN) {
                    if (stopped) {
                        return;
                    }
                    LockSupport.park(this);
                }
                turn = DRIVER_TURN;
                LockSupport.unpark(driver);
            }
        });
    }

    @Setup(Level.Iteration)
    public void recordDriver() {
        driver = Thread.currentThread(); // JMH's benchmark thread, the one that parks in parkUnpark
    }

    @Benchmark
    public Integer synchronousQueue() throws InterruptedException {
        ping.put(TOKEN);
        return pong.take();
    }

    @Benchmark
    public void parkUnpark() {
        turn = ECHO_TURN;
        LockSupport.unpark(parkEcho);
        while (turn != DRIVER_TURN) {
            LockSupport.park(this);
        }
    }

    @TearDown(Level.Trial)
    public void stopEchoes() throws InterruptedException {
        ping.put(STOP);
        stopped = true;
        LockSupport.unpark(parkEcho);
        queueEcho.join();
        parkEcho.join();
    }
}
