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

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The floor under every hand-off: what the JVM and the OS charge before any scheduler does
 * anything. The report divides each hand-off benchmark by these ({@code results.md}, "hand-offs
 * as multiples of the floor"). No virtual thread and no scheduler is involved: JMH's benchmark
 * thread is a platform thread here, so both JVMs (GMP's, with the agent, and ForkJoinPool's)
 * measure the same thing. The runner still runs them in both, so that each scheduler's hand-offs
 * are divided by a floor measured in a JVM started as theirs was, in the same run.
 * <ul>
 *   <li>{@code continuationYield}: a bare {@code jdk.internal.vm.Continuation}, created once, whose
 *       body loops on {@code Continuation.yield(scope)}; each operation is one {@code run()}: the
 *       continuation is thawed (continued) onto the benchmark thread's stack and frozen again at
 *       its yield. One yield and one continue is what every virtual-thread switch costs at least:
 *       a virtual thread that parks yields its continuation, and running it again continues it.
 *       Its stack holds only the body's frame and {@code Continuation.yield}'s, so freeze and thaw
 *       copy little: deeper stacks cost more (see {@link RingBenchmark}'s {@code depth}).</li>
 *   <li>{@code platformParkUnpark}: the OS-level wake-up. Two platform threads, JMH's and an echo
 *       thread, pass a turn with {@link LockSupport#park}/{@code unpark} (HotSpot's {@code Parker}:
 *       a pthread mutex and condition variable, so a futex wake and a futex wait); each operation
 *       is one round trip: 2 unparks, 2 parks, and so 2 wake-ups of a sleeping OS thread by the
 *       kernel (on another core, or on the same one after a context switch), the same protocol as
 *       {@link PingPongBenchmark#parkUnpark()} with platform threads instead of virtual ones.</li>
 * </ul>
 * Needs {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED} (its {@code @Fork} adds it):
 * the continuation API is the JDK's internal one, reached through method handles so that the
 * build needs no export (a constant method handle is inlined by the JIT like a direct call).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED")
public class FloorBenchmark extends OnScheduler {

    @Setup(Level.Trial)
    public void requirePlatformBenchmarkThread() {
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("the floor runs on a platform benchmark thread: run its forks without"
                    + " -Djmh.executor=VIRTUAL");
        }
    }

    @Benchmark
    public void continuationYield(BareContinuation continuation) throws Throwable {
        continuation.resume();
    }

    /** One round trip: the turn to the echo thread and back, each side woken by the other's unpark. */
    @Benchmark
    public void platformParkUnpark(PlatformEcho echo) {
        echo.roundTrip();
    }

    /**
     * A continuation created once, whose body yields in a loop: each {@link #resume()} continues it
     * up to its next yield. A yield that fails (the continuation pinned) fails the benchmark.
     */
    @State(Scope.Thread)
    public static class BareContinuation {
        private static final String EXPORT = "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED";

        private Object continuation;
        private volatile boolean stopped;

        @Setup(Level.Trial)
        public void create() throws Throwable {
            ContinuationApi.require();
            Object scope = ContinuationApi.NEW_SCOPE.invokeExact("floor");
            continuation = ContinuationApi.NEW_CONTINUATION.invokeExact(scope, (Runnable) () -> {
                while (!stopped) {
                    boolean yielded;
                    try {
                        yielded = (boolean) ContinuationApi.YIELD.invokeExact(scope);
                    } catch (Throwable e) {
                        throw new IllegalStateException("Continuation.yield failed", e);
                    }
                    if (!yielded) {
                        throw new IllegalStateException("Continuation.yield did not yield (pinned): the floor would"
                                + " measure a call, not a switch");
                    }
                }
            });
        }

        /** Continues the body until its next yield: one continue and one yield. */
        void resume() throws Throwable {
            ContinuationApi.RUN.invokeExact(continuation);
        }

        /** Runs the body to its end, so that no continuation is left suspended. */
        @TearDown(Level.Trial)
        public void finish() throws Throwable {
            stopped = true;
            ContinuationApi.RUN.invokeExact(continuation);
            if (!(boolean) ContinuationApi.IS_DONE.invokeExact(continuation)) {
                throw new IllegalStateException("the floor's continuation did not finish");
            }
        }

        /**
         * {@code jdk.internal.vm.Continuation}'s constructor, {@code run}, {@code yield} and
         * {@code isDone}, and {@code ContinuationScope}'s constructor, as constant method handles
         * (static finals, which the JIT inlines), or null with the reason in {@link #FAILURE}.
         */
        private static final class ContinuationApi {
            static final MethodHandle NEW_SCOPE;
            static final MethodHandle NEW_CONTINUATION;
            static final MethodHandle RUN;
            static final MethodHandle YIELD;
            static final MethodHandle IS_DONE;
            static final ReflectiveOperationException FAILURE;

            static {
                MethodHandle[] handles = new MethodHandle[5];
                ReflectiveOperationException failure = null;
                try {
                    MethodHandles.Lookup lookup = MethodHandles.lookup();
                    Class<?> scope = Class.forName("jdk.internal.vm.ContinuationScope");
                    Class<?> type = Class.forName("jdk.internal.vm.Continuation");
                    handles[0] = lookup.findConstructor(scope, MethodType.methodType(void.class, String.class))
                            .asType(MethodType.methodType(Object.class, String.class));
                    handles[1] = lookup.findConstructor(type, MethodType.methodType(void.class, scope, Runnable.class))
                            .asType(MethodType.methodType(Object.class, Object.class, Runnable.class));
                    handles[2] = lookup.findVirtual(type, "run", MethodType.methodType(void.class))
                            .asType(MethodType.methodType(void.class, Object.class));
                    handles[3] = lookup.findStatic(type, "yield", MethodType.methodType(boolean.class, scope))
                            .asType(MethodType.methodType(boolean.class, Object.class));
                    handles[4] = lookup.findVirtual(type, "isDone", MethodType.methodType(boolean.class))
                            .asType(MethodType.methodType(boolean.class, Object.class));
                } catch (ReflectiveOperationException e) { // IllegalAccessException without the export
                    failure = e;
                    Arrays.fill(handles, null);
                }
                NEW_SCOPE = handles[0];
                NEW_CONTINUATION = handles[1];
                RUN = handles[2];
                YIELD = handles[3];
                IS_DONE = handles[4];
                FAILURE = failure;
            }

            static void require() {
                if (FAILURE != null) {
                    throw new IllegalStateException("jdk.internal.vm.Continuation is not accessible (" + FAILURE
                            + "): run the forks with " + EXPORT
                            + " (the benchmark's @Fork adds it; -jvmArgsAppend on the command line replaces it)", FAILURE);
                }
            }
        }
    }

    /**
     * A platform echo thread that hands the turn back to the benchmark thread: the same protocol
     * as {@link PingPongBenchmark#parkUnpark()}, with platform threads.
     */
    @State(Scope.Thread)
    public static class PlatformEcho {
        private static final int DRIVER_TURN = 0;
        private static final int ECHO_TURN = 1;

        private volatile int turn = DRIVER_TURN;
        private volatile boolean stopped;
        private volatile Thread driver;
        private Thread echo;

        @Setup(Level.Trial)
        public void start() {
            echo = Thread.ofPlatform().daemon().name("floor-echo").start(() -> {
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
            driver = Thread.currentThread(); // JMH's benchmark thread, the one that parks in roundTrip
        }

        /** The echo thread: for tests. */
        Thread echoThread() {
            return echo;
        }

        void roundTrip() {
            turn = ECHO_TURN;
            LockSupport.unpark(echo);
            while (turn != DRIVER_TURN) {
                LockSupport.park(this);
            }
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            stopped = true;
            LockSupport.unpark(echo);
            Benchmarks.join(new Thread[] {echo}, "floor echo");
        }
    }
}
