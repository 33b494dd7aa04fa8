package io.loomgmp.benchmarks.saturation;

import benchapp.CalibratedBurn;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@code /handoff} endpoint's workers: FrankenPHP's shape, where a request handler gives its
 * job to one of a few long-lived worker threads through an unbuffered channel and waits for the
 * answer on another. Here: {@value #WORKERS} worker virtual threads take jobs from one fair
 * {@link SynchronousQueue} (a put waits until a worker takes it, first come first served), each
 * burns the job's CPU and puts the answer into the job's own {@link SynchronousQueue}, which the
 * handler is waiting on.
 *
 * <p>What it stresses: every request is two hand-offs between virtual threads (handler to worker,
 * worker to handler), and under load most handlers wait in the queue for one of only four workers.
 */
final class HandoffPool {
    static final int WORKERS = 4;

    private final SynchronousQueue<Job> jobs = new SynchronousQueue<>(true);
    private final CalibratedBurn burn;

    private record Job(long micros, long seed, LongAdder stepsDone, SynchronousQueue<Long> answer) {
    }

    private HandoffPool(CalibratedBurn burn) {
        this.burn = burn;
    }

    /** Starts the workers; they run until the JVM exits. */
    static HandoffPool start(CalibratedBurn burn) {
        HandoffPool pool = new HandoffPool(burn);
        for (int i = 0; i < WORKERS; i++) {
            Thread.ofVirtual().name("handoff-worker-" + i).start(pool::work);
        }
        return pool;
    }

    /** Hands a job of {@code micros} µs of CPU to a worker, counted in {@code stepsDone}, and waits for its result. */
    long submit(long micros, long seed, LongAdder stepsDone) throws InterruptedException {
        SynchronousQueue<Long> answer = new SynchronousQueue<>();
        jobs.put(new Job(micros, seed, stepsDone, answer));
        return answer.take();
    }

    private void work() {
        try {
            while (true) {
                Job job = jobs.take();
                job.answer.put(burn.burnMicros(job.micros, job.seed, job.stepsDone));
            }
        } catch (InterruptedException e) {
            // the JVM is exiting
        }
    }
}
