package io.loomgmp.dispatcher;

import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * sysmon: one daemon platform thread with no P that watches the Ps (Go's {@code sysmon} and the
 * preemption half of {@code retake}). Each round it requests preemption of a P whose schedtick
 * has not moved for longer than the time slice while it is busy ({@link Preemption}): the P's
 * next scheduling decision skips runnext once, and a virtual thread at a preemption poll yields.
 * A request is repeated after every further time slice without progress.
 *
 * <p>It sleeps 20 µs between rounds, doubling after 50 rounds in which it did nothing, up to
 * 10 ms, and sleeps until woken while every P is idle. Carrier compensation (handing the P of a
 * carrier blocked in a task to another carrier) is not implemented yet.
 *
 * <p>The per-P observations ({@link Watch}) belong to the sysmon thread; it reads the Ps'
 * schedticks with opaque reads and changes their preemption flags only by CAS.
 */
final class Sysmon implements Runnable {
    static final long MIN_DELAY_NANOS = 20_000;
    static final long MAX_DELAY_NANOS = 10_000_000;
    /** Rounds without action before the delay starts doubling (Go's value). */
    static final int IDLE_ROUNDS_BEFORE_BACKOFF = 50;

    private final Scheduling scheduling;
    private final long timeSliceNanos;
    private final Watch[] watches;
    private final Thread thread;
    private volatile boolean sleepingDeeply;

    final LongAdder preemptRequests = new LongAdder();
    final LongAdder handoffs = new LongAdder();

    /** What sysmon saw of one P at its last look. */
    private static final class Watch {
        long schedtick = -1;
        long schedtickSince;
    }

    Sysmon(Scheduling scheduling) {
        this.scheduling = scheduling;
        this.timeSliceNanos = scheduling.timeSlice.toNanos();
        this.watches = new Watch[scheduling.procs];
        for (int i = 0; i < watches.length; i++) {
            watches[i] = new Watch();
        }
        this.thread = new Thread(null, this, scheduling.name + "-sysmon", 0, false);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** After the scheduler terminated: wakes the thread so it ends; returns it, to be joined. */
    Thread stop() {
        LockSupport.unpark(thread);
        return thread;
    }

    /**
     * Any thread, after taking an idle P (a volatile write of the idle count): work is back, so
     * sysmon leaves its deep sleep. Pairs with the flag write and second look in {@link #run}.
     */
    void wake() {
        if (sleepingDeeply) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        long delay = MIN_DELAY_NANOS;
        int idleRounds = 0;
        while (!scheduling.isTerminated()) {
            if (allIdle()) {
                // Publish the deep sleep, then look again: a P taken after our first look either
                // sees the flag (Idle.getP calls wake) or is seen by this second look.
                sleepingDeeply = true;
                if (allIdle() && !scheduling.isTerminated()) {
                    LockSupport.park(this);
                }
                sleepingDeeply = false;
                delay = MIN_DELAY_NANOS;
                idleRounds = 0;
                continue;
            }
            LockSupport.parkNanos(this, delay);
            if (requestPreemptions(System.nanoTime())) {
                idleRounds = 0;
                delay = MIN_DELAY_NANOS;
            } else if (++idleRounds > IDLE_ROUNDS_BEFORE_BACKOFF) {
                delay = Math.min(delay * 2, MAX_DELAY_NANOS);
            }
        }
    }

    private boolean allIdle() {
        return scheduling.idle.idleProcs() == scheduling.procs && scheduling.global.size() == 0;
    }

    /** One round over the Ps; true if it requested a preemption. */
    private boolean requestPreemptions(long now) {
        boolean acted = false;
        for (int i = 0; i < watches.length; i++) {
            Processor p = scheduling.allp[i];
            Watch watch = watches[i];
            long schedtick = p.schedtick();
            if (p.owner == null || schedtick != watch.schedtick) {
                watch.schedtick = schedtick;
                watch.schedtickSince = now;
            } else if (now - watch.schedtickSince > timeSliceNanos) {
                if (Preemption.request(p)) {
                    preemptRequests.increment();
                    acted = true;
                }
                watch.schedtickSince = now; // ask again after another slice if nothing changes
            }
        }
        return acted;
    }
}
