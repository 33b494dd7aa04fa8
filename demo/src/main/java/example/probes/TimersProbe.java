package example.probes;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Timed waits of virtual threads: do they return on time, never early, and does a timeout that an
 * unpark cancels leave nothing behind? Plain virtual-thread code, run under whichever scheduler
 * the JVM gives its virtual threads; prints {@code key=value} lines on standard output.
 *
 * <ul>
 * <li>{@code random [threads [inFlight]]} (default {@value #RANDOM_THREADS} threads, at most
 * {@value #RANDOM_IN_FLIGHT} at a time): each virtual thread does one timed wait of a random duration
 * from 0 to {@value #RANDOM_MAX_MILLIS} ms, by turns {@code Thread.sleep(Duration)},
 * {@code Thread.sleep(long)}, a {@code LockSupport.parkNanos} loop (parkNanos may return early by its
 * spec; the loop parks again until the deadline) and {@code CountDownLatch.await(timeout)} on a latch
 * nobody counts down. Half the threads are started by this (platform) thread, half by a virtual
 * thread, each once fewer than {@code inFlight} are waiting. Few enough in flight keep the run queues
 * short, so that a wait that ended early is not hidden by the time the woken thread then waits for a
 * carrier (on a 2-core machine, sleeps cut 1 ms short were seen as early more than eight times in
 * ten at 1,000 in flight; with all 100,000 at once, sleeps cut by half were seen one time in 200).
 * Prints {@code completed} (threads that finished their
 * wait within {@value #RANDOM_BOUND_SECONDS} s of the start), {@code early} (sleeps and awaits that
 * returned before their duration: must be 0; {@code earlyByKind}), {@code earlyParkReturns}
 * (parkNanos returns before the deadline: allowed, the loop parks again), {@code errors},
 * {@code latenessP50Micros}, {@code latenessP99Micros}, {@code worstLatenessMicros},
 * {@code elapsedMillis} and {@code finishedWithinBound}.</li>
 * <li>{@code sleepers [threads [sleeps]]} (default 10,000 × 10, as the JMH Timers benchmark): each
 * virtual thread sleeps 1 ms, {@code sleeps} times; prints {@code totalMillis} (start of the first to
 * end of the last), {@code latenessP50Micros}, {@code latenessP99Micros}, {@code latenessMaxMicros}
 * (how much later than 1 ms each sleep returned), {@code completed} and {@code finishedWithinBound}.</li>
 * <li>{@code cancelled [handoffs [pairs]]} (default 1,000,000 in 8 pairs): pairs of virtual threads
 * hand a turn back and forth, each waiting for its turn in {@code LockSupport.parkNanos} with a
 * {@link #CANCELLED_PARK_TIMEOUT} timeout that the other's unpark cuts short. Prints the heap used
 * after full GCs before the loop ({@code baselineHeapBytes}) and after it ({@code afterHeapBytes},
 * {@code heapGrowthBytes}), {@code loopMillis}, {@code timedParks}, {@code timedOut} (parks that
 * lasted the whole timeout: 0 unless the run is very slow), {@code unparkedWhileTimedWaiting}
 * (hand-offs whose unpark found the other thread in its timed park, i.e. cancelled a timeout) and
 * {@code measuredBeforeTimeouts} (whether the after figure was taken before the first timeout could have expired, so that a
 * scheduler keeping cancelled timeouts until they expire would show them).</li>
 * </ul>
 */
public final class TimersProbe {
    static final int RANDOM_THREADS = 100_000;
    static final int RANDOM_MAX_MILLIS = 50;
    static final int RANDOM_IN_FLIGHT = 1_000;
    static final long RANDOM_BOUND_SECONDS = 30;
    static final long RANDOM_SEED = 0x5EED_71AE5L;
    /** The sleepers mode's bound: a run that takes longer stops waiting and reports what finished. */
    static final long SLEEPERS_BOUND_SECONDS = 60;
    public static final Duration CANCELLED_PARK_TIMEOUT = Duration.ofSeconds(60);

    private TimersProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        String mode = args.length > 0 ? args[0] : "";
        switch (mode) {
            case "random" -> random(intArg(args, 1, RANDOM_THREADS), intArg(args, 2, RANDOM_IN_FLIGHT));
            case "sleepers" -> {
                Sleepers run = sleepers(intArg(args, 1, 10_000), intArg(args, 2, 10));
                System.out.println("threads=" + run.threads());
                System.out.println("sleeps=" + run.sleeps());
                System.out.println("completed=" + run.completed());
                System.out.println("totalMillis=" + run.totalNanos() / 1_000_000);
                System.out.println("latenessP50Micros=" + run.latenessMicros(0.50));
                System.out.println("latenessP99Micros=" + run.latenessMicros(0.99));
                System.out.println("latenessMaxMicros=" + run.latenessMicros(1.0));
                System.out.println("finishedWithinBound=" + run.finishedWithinBound());
            }
            case "cancelled" -> cancelled(intArg(args, 1, 1_000_000), intArg(args, 2, 8));
            default -> {
                System.err.println("usage: TimersProbe random [threads [inFlight]] | sleepers [threads [sleeps]]"
                        + " | cancelled [handoffs [pairs]]");
                System.exit(2);
            }
        }
        // Virtual threads are daemons; a run that gave up waiting must not wait for stragglers either.
        System.exit(0);
    }

    private static int intArg(String[] args, int index, int fallback) {
        int value = args.length > index ? Integer.parseInt(args[index]) : fallback;
        if (value < 1) {
            throw new IllegalArgumentException("argument " + index + " must be at least 1, was " + value);
        }
        return value;
    }

    // ---------------------------------------------------------------------------------- random

    private static final int SLEEP_DURATION = 0;
    private static final int SLEEP_MILLIS = 1;
    private static final int PARK_NANOS = 2;
    private static final int LATCH_AWAIT = 3;
    private static final String[] KINDS = {"sleepDuration", "sleepMillis", "parkNanos", "latchAwait"};

    private static void random(int threads, int inFlight) throws InterruptedException {
        new RandomWaits(threads, inFlight).run();
    }

    /** The random mode's state: what each thread asked for and what it got. */
    private static final class RandomWaits {
        final int threads;
        final long[] requested;
        final long[] lateness;
        final LongAdder[] early = new LongAdder[KINDS.length];
        final LongAdder earlyParkReturns = new LongAdder();
        final LongAdder errors = new LongAdder();
        final AtomicInteger completed = new AtomicInteger();
        final CountDownLatch done;
        final CountDownLatch never = new CountDownLatch(1);
        final int maxInFlight;
        final Semaphore inFlight;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RANDOM_BOUND_SECONDS);

        RandomWaits(int threads, int inFlight) {
            this.threads = threads;
            this.maxInFlight = inFlight;
            this.inFlight = new Semaphore(inFlight);
            done = new CountDownLatch(threads);
            requested = new long[threads];
            lateness = new long[threads];
            Arrays.fill(lateness, Long.MIN_VALUE);
            Arrays.setAll(early, k -> new LongAdder());
            SplittableRandom random = new SplittableRandom(RANDOM_SEED);
            long maxNanos = TimeUnit.MILLISECONDS.toNanos(RANDOM_MAX_MILLIS);
            for (int i = 0; i < threads; i++) {
                requested[i] = i % KINDS.length == SLEEP_MILLIS
                        ? TimeUnit.MILLISECONDS.toNanos(random.nextInt(RANDOM_MAX_MILLIS + 1))
                        : random.nextLong(maxNanos + 1);
            }
        }

        void run() throws InterruptedException {
            long start = System.nanoTime();
            // Odd-numbered threads are started by a virtual thread, even-numbered by this platform thread.
            Thread spawner = Thread.ofVirtual().name("spawner").start(() -> startAll(1));
            startAll(0);
            boolean finished = done.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            long elapsed = System.nanoTime() - start;
            spawner.join(Duration.ofSeconds(1));

            long[] finishedLateness = Arrays.stream(lateness).filter(l -> l != Long.MIN_VALUE).sorted().toArray();
            long earlyTotal = Arrays.stream(early).mapToLong(LongAdder::sum).sum();
            StringBuilder byKind = new StringBuilder();
            for (int k = 0; k < KINDS.length; k++) {
                byKind.append(k == 0 ? "" : ",").append(KINDS[k]).append(':').append(early[k].sum());
            }
            System.out.println("threads=" + threads);
            System.out.println("inFlight=" + maxInFlight);
            System.out.println("completed=" + completed.get());
            System.out.println("early=" + earlyTotal);
            System.out.println("earlyByKind=" + byKind);
            System.out.println("earlyParkReturns=" + earlyParkReturns.sum());
            System.out.println("errors=" + errors.sum());
            System.out.println("latenessP50Micros=" + percentile(finishedLateness, 0.5) / 1_000);
            System.out.println("latenessP99Micros=" + percentile(finishedLateness, 0.99) / 1_000);
            System.out.println("worstLatenessMicros=" + percentile(finishedLateness, 1.0) / 1_000);
            System.out.println("elapsedMillis=" + elapsed / 1_000_000);
            System.out.println("boundMillis=" + TimeUnit.SECONDS.toMillis(RANDOM_BOUND_SECONDS));
            System.out.println("finishedWithinBound=" + finished);
        }

        /** Starts threads {@code first}, {@code first + 2}, ..., each once a place in flight is free. */
        private void startAll(int first) {
            try {
                for (int i = first; i < threads; i += 2) {
                    if (!inFlight.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                        return; // out of time: the run reports what completed
                    }
                    int index = i;
                    Thread.ofVirtual().start(() -> {
                        try {
                            waitOnce(index);
                        } finally {
                            inFlight.release();
                            done.countDown();
                        }
                    });
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }

        private void waitOnce(int i) {
            try {
                int kind = i % KINDS.length;
                long nanos = requested[i];
                long before = System.nanoTime();
                switch (kind) {
                    case SLEEP_DURATION -> Thread.sleep(Duration.ofNanos(nanos));
                    case SLEEP_MILLIS -> Thread.sleep(TimeUnit.NANOSECONDS.toMillis(nanos));
                    case PARK_NANOS -> {
                        long deadline = before + nanos;
                        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
                            LockSupport.parkNanos(left);
                            if (deadline - System.nanoTime() > 0) {
                                earlyParkReturns.increment(); // allowed by parkNanos' spec: park again
                            }
                        }
                    }
                    case LATCH_AWAIT -> {
                        if (never.await(nanos, TimeUnit.NANOSECONDS)) {
                            throw new IllegalStateException("a latch nobody counts down opened");
                        }
                    }
                    default -> throw new IllegalStateException("kind " + kind);
                }
                long elapsed = System.nanoTime() - before;
                if (elapsed < nanos) {
                    early[kind].increment();
                }
                lateness[i] = elapsed - nanos;
                completed.incrementAndGet();
            } catch (Throwable e) {
                errors.increment();
                e.printStackTrace();
            }
        }
    }

    // -------------------------------------------------------------------------------- sleepers

    /**
     * One sleepers run: {@code lateness} holds the sorted lateness (ns) of the sleeps that finished.
     */
    public record Sleepers(int threads, int sleeps, int completed, long totalNanos, long[] lateness,
                           boolean finishedWithinBound) {
        /** The {@code q}-quantile (0 to 1) of the lateness, in µs; 0 when no sleep finished. */
        public long latenessMicros(double q) {
            return percentile(lateness, q) / 1_000;
        }
    }

    /** {@code threads} virtual threads, started by the calling thread, each sleep 1 ms {@code sleeps} times. */
    public static Sleepers sleepers(int threads, int sleeps) throws InterruptedException {
        Duration sleep = Duration.ofMillis(1);
        long[] lateness = new long[threads * sleeps];
        Arrays.fill(lateness, Long.MIN_VALUE);
        AtomicInteger completed = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(threads);
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int first = t * sleeps;
            Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < sleeps; i++) {
                        long before = System.nanoTime();
                        Thread.sleep(sleep);
                        lateness[first + i] = System.nanoTime() - before - sleep.toNanos();
                    }
                    completed.incrementAndGet();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                } finally {
                    done.countDown();
                }
            });
        }
        boolean finished = done.await(SLEEPERS_BOUND_SECONDS, TimeUnit.SECONDS);
        long total = System.nanoTime() - start;
        long[] sorted = Arrays.stream(lateness).filter(l -> l != Long.MIN_VALUE).sorted().toArray();
        return new Sleepers(threads, sleeps, completed.get(), total, sorted, finished);
    }

    /** The {@code q}-quantile (0 to 1) of sorted values, nearest rank; 0 for none. */
    static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }

    // ------------------------------------------------------------------------------- cancelled

    private static void cancelled(int handoffs, int pairs) throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        pingPong(Math.max(pairs, Math.min(handoffs, 10_000)), pairs); // warm-up: the scheduler's and the JDK's lazy state
        long baseline = usedHeapAfterGc(memory);

        long start = System.nanoTime();
        long[] counts = pingPong(handoffs, pairs);
        long loop = System.nanoTime() - start;
        long after = usedHeapAfterGc(memory);
        long measured = System.nanoTime() - start;

        System.out.println("handoffs=" + counts[0]);
        System.out.println("pairs=" + pairs);
        System.out.println("timedParks=" + counts[1]);
        System.out.println("timedOut=" + counts[2]);
        System.out.println("unparkedWhileTimedWaiting=" + counts[3]);
        System.out.println("parkTimeoutMillis=" + CANCELLED_PARK_TIMEOUT.toMillis());
        System.out.println("loopMillis=" + loop / 1_000_000);
        System.out.println("baselineHeapBytes=" + baseline);
        System.out.println("afterHeapBytes=" + after);
        System.out.println("heapGrowthBytes=" + (after - baseline));
        System.out.println("measuredBeforeTimeouts=" + (measured < CANCELLED_PARK_TIMEOUT.toNanos()));
    }

    /**
     * {@code pairs} pairs of virtual threads hand a turn back and forth {@code handoffs} times in all,
     * waiting for it in timed parks. Returns {handoffs, timed parks, parks that lasted the timeout,
     * hand-offs that found the other thread in its timed park}.
     */
    private static long[] pingPong(int handoffs, int pairs) throws InterruptedException {
        LongAdder parks = new LongAdder();
        LongAdder timedOut = new LongAdder();
        LongAdder handed = new LongAdder();
        LongAdder cutShort = new LongAdder();
        Thread[] threads = new Thread[2 * pairs];
        for (int p = 0; p < pairs; p++) {
            int share = handoffs / pairs + (p < handoffs % pairs ? 1 : 0);
            Turn turn = new Turn();
            Thread[] pair = new Thread[2];
            for (int side = 0; side < 2; side++) {
                int me = side;
                // Side 0 hands off on even turns, side 1 on odd ones: share hand-offs in all.
                int mine = (share - me + 1) / 2;
                pair[side] = Thread.ofVirtual().unstarted(() -> {
                    Thread other = pair[1 - me];
                    for (int i = 0; i < mine; i++) {
                        while (turn.value % 2 != me) {
                            long before = System.nanoTime();
                            LockSupport.parkNanos(turn, CANCELLED_PARK_TIMEOUT.toNanos());
                            parks.increment();
                            if (System.nanoTime() - before >= CANCELLED_PARK_TIMEOUT.toNanos()) {
                                timedOut.increment();
                            }
                        }
                        turn.value++;
                        handed.increment();
                        if (other.getState() == Thread.State.TIMED_WAITING) {
                            cutShort.increment(); // parked in its timed park (or about to be): the unpark cuts it short
                        }
                        LockSupport.unpark(other);
                    }
                });
            }
            threads[2 * p] = pair[0];
            threads[2 * p + 1] = pair[1];
        }
        for (Thread thread : threads) {
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return new long[] {handed.sum(), parks.sum(), timedOut.sum(), cutShort.sum()};
    }

    /** The turn of one pair: side {@code value % 2} may hand off next. */
    private static final class Turn {
        volatile int value;
    }

    private static long usedHeapAfterGc(MemoryMXBean memory) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
