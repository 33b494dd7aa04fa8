package io.loomgmp.dispatcher;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Which queued tasks carry a timestamp, for the scheduling latency (Go's
 * {@code /sched/latencies}): about one submission in {@link #sampleEvery} is <em>sampled</em>,
 * and the carrier that takes it off a queue records how long it waited in the P's
 * {@link LatencyRecorder}. Go keeps the timestamp in the goroutine and tracks every 8th schedule
 * of each one ({@code gTrackingPeriod}); a task here is a plain {@code Runnable} (for a virtual
 * thread, its one reused {@code runContinuation}) with no field to spare, so a sampled task is
 * queued inside a {@link Sample}, which carries the timestamp through the queues: runnext, a
 * ring, a steal, an overflow, the global queue, a move off a retired P. The loop takes the task
 * out of it just before it runs ({@code RunLoop.run}).
 *
 * <h2>Invariants</h2>
 * <ol>
 *   <li>A sample is the queued entry itself: it is recorded exactly when its task is taken to run,
 *       once, and never by a later run of the same task.</li>
 *   <li>No table, nothing to sweep: a sample lives exactly as long as its entry in a queue.</li>
 *   <li>Nothing here can lose or delay a task: a sample is queued where its task would have been,
 *       and the only code that sees it, besides the queues, unwraps it before anything else.</li>
 * </ol>
 *
 * <h2>Cost</h2>
 * Per task run: one type check ({@code instanceof Sample}). Per sampled submission: one small
 * allocation and {@code nanoTime}; per sampled run, {@code nanoTime} and the recorder's stores.
 * With sampling off ({@code sampleEvery} 0) none of it runs. (A table keyed by the task's identity
 * hash, which this replaced, cost every task run a hash and a probe: about 50 ns a task in a
 * burst of submissions.)
 *
 * <h2>Failure</h2>
 * Nothing here throws, except an {@code OutOfMemoryError} in {@link #sample}'s allocation;
 * {@link #queued} catches it, reports it as a {@link SchedulerFailure.Site#LATENCY_SAMPLE} failure
 * and queues the task unsampled.
 */
final class LatencySamples {
    /** Largest accepted {@code sampleEvery}. */
    static final int MAX_SAMPLE_EVERY = 1_000_000;
    /** Go's {@code gTrackingPeriod}. */
    static final int DEFAULT_SAMPLE_EVERY = 8;

    /**
     * A sampled task as the queues hold it: {@code task}, queued at {@code queuedAt}
     * ({@code System.nanoTime()}); {@code timer}: made runnable by a timer. Immutable. It is a
     * {@code Runnable} only so that a queue of tasks can hold it: the loop runs {@code task}, never
     * this ({@link #run} runs the task, should anything run it by mistake).
     */
    record Sample(Runnable task, long queuedAt, boolean timer) implements Runnable {
        @Override
        public void run() {
            task.run();
        }
    }

    /** About one submission in this many is sampled; 1: all; 0: none. */
    final int sampleEvery;

    /** @param sampleEvery 0 (off) to {@link #MAX_SAMPLE_EVERY} */
    LatencySamples(int sampleEvery) {
        if (sampleEvery < 0 || sampleEvery > MAX_SAMPLE_EVERY) {
            throw new IllegalArgumentException("latencySample must be from 0 to " + MAX_SAMPLE_EVERY
                    + " (0 turns sampling off, 1 times every task), was " + sampleEvery);
        }
        this.sampleEvery = sampleEvery;
    }

    /** Whether latencies are sampled at all. */
    boolean on() {
        return sampleEvery != 0;
    }

    /**
     * The submitter of {@code task}, which is about to queue it, with sampling on; {@code m}: the
     * carrier it runs on, or null. Samples the submission, one in about {@link #sampleEvery}: the
     * task waits from now, or from its timer's due time when the loop of {@code m} is firing that
     * timer. Returns what to queue: the task inside its sample, or the task itself. Never throws:
     * a failure (an {@code OutOfMemoryError} allocating the sample) is reported to
     * {@code failures} and the task is queued untimed.
     */
    Runnable queued(Carrier m, Runnable task, Failures failures) {
        try {
            if (!shouldSample(m)) {
                return task;
            }
            // The timer's task runs on the carrier itself (Timers.runDue), not on a virtual thread.
            boolean timer = m != null && m.firingTimer && m.thread == Thread.currentThread();
            long queuedAt = timer ? m.firingTimerDue : System.nanoTime();
            return sample(task, queuedAt, timer);
        } catch (Throwable failure) {
            failures.report(SchedulerFailure.Site.LATENCY_SAMPLE, failure, "the task was queued untimed");
            return task;
        }
    }

    /**
     * The submitter, with sampling on: whether this submission is sampled. {@code m}: the carrier
     * the caller runs on (its own thread, or a virtual thread mounted on it), else null.
     * A carrier counts down a gap drawn at random around {@code sampleEvery} (uniform in
     * {@code [1, 2·sampleEvery − 1]}), so periodic workloads do not alias with the sampling and
     * the fast path is one decrement of an owner-only field; another thread draws at random.
     */
    boolean shouldSample(Carrier m) {
        if (sampleEvery == 1) {
            return true;
        }
        if (m == null) {
            return ThreadLocalRandom.current().nextInt(sampleEvery) == 0;
        }
        if (--m.untilSample > 0) {
            return false;
        }
        m.untilSample = 1 + ThreadLocalRandom.current().nextInt(2 * sampleEvery - 1);
        return true;
    }

    /**
     * The submitter, for a sampled submission: what to queue in place of {@code task}. May throw
     * an {@code OutOfMemoryError}.
     */
    static Sample sample(Runnable task, long queuedAt, boolean timer) {
        return new Sample(task, queuedAt, timer);
    }
}
