package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Carrier compensation: sysmon takes the P of a carrier blocked inside a task and hands it to
 * another carrier, within {@code maxCarriers}; the blocked carrier gets a P back or parks when its
 * task returns, and spare carriers retire after the keep-alive. Bounds are generous: these tests
 * check behaviour, not speed.
 */
class HandoffTest {

    @Test
    void aTaskQueuedBehindAParkedCarrierRunsOnAnotherCarrier() {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocked = new CountDownLatch(1);
            s.execute(() -> {
                blocked.countDown();
                Probe.block(release); // the carrier is WAITING inside the task
            });
            Probe.await(blocked, Probe.BOUND, s, "the blocking task to start");
            CountDownLatch probe = new CountDownLatch(1);
            s.execute(probe::countDown);
            Probe.await(probe, Probe.BOUND, s, "the probe behind the blocked carrier");
            SchedulerSnapshot during = s.snapshot();
            assertEquals(1, during.handoffs(), during.toString());
            assertEquals(1, during.blockedCarriers(), during.toString());
            assertTrue(during.carriers() >= 2, during.toString());

            release.countDown();
            Probe.awaitTrue(() -> s.snapshot().blockedCarriers() == 0, Probe.BOUND, s, "the blocked carrier to come back");
            CountDownLatch after = new CountDownLatch(1);
            s.execute(after::countDown);
            Probe.await(after, Probe.BOUND, s, "a task after the hand-off");
        }
    }

    @Test
    @EnabledOnOs(value = OS.LINUX, disabledReason = "native blocking is detected through Linux's /proc")
    void aCarrierBlockedInNativeCodeHandsItsPOff() throws IOException {
        // A read from a child process's stdout blocks in the kernel: RUNNABLE for the JVM.
        Process silent = new ProcessBuilder("sleep", "60").start();
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            CountDownLatch reading = new CountDownLatch(1);
            CountDownLatch readReturned = new CountDownLatch(1);
            s.execute(() -> {
                reading.countDown();
                try (InputStream in = silent.getInputStream()) {
                    in.read(); // returns -1 once the process is killed
                } catch (IOException ignored) {
                    // killed: either way the read is over
                }
                readReturned.countDown();
            });
            Probe.await(reading, Probe.BOUND, s, "the reading task to start");
            CountDownLatch probe = new CountDownLatch(1);
            s.execute(probe::countDown);
            Probe.await(probe, Probe.BOUND, s, "the probe behind the carrier blocked in read()");
            assertEquals(1, s.snapshot().handoffs(), s.snapshot().toString());
            silent.destroyForcibly();
            Probe.await(readReturned, Probe.BOUND, s, "the read to return");
        } finally {
            silent.destroyForcibly();
        }
    }

    @Test
    void computingAndSubmittingTasksAreNotHandedOff() {
        // Carriers that compute and submit to the global queue, with work waiting behind them,
        // are not blocked: sysmon looks at whether they block (their tasks outlast its "too
        // young to tell" cut-off) and must leave their Ps alone.
        try (GmpScheduler s = GmpScheduler.builder().procs(2).build()) {
            computeAndSubmit(s, Probe.BOUND);
            assertTrue(s.scheduling.sysmon.retake.blockedChecks > 0, "sysmon never looked at whether a carrier blocks\n" + s.snapshot());
            assertEquals(0, s.snapshot().handoffs(), s.snapshot().toString());
        }
    }

    /**
     * 2,000 tasks that compute for 300 µs (longer than sysmon's {@link BlockedCheck#HANDOFF_AFTER_NANOS},
     * so that it looks at whether they block) and submit to the global queue; waits for them all.
     */
    static void computeAndSubmit(GmpScheduler s, Duration bound) {
        int tasks = 2_000;
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            s.submit(() -> {
                Probe.spin(Duration.ofNanos(300_000));
                s.submit(done::countDown, Placement.GLOBAL);
            }, Placement.GLOBAL);
        }
        Probe.await(done, bound, s, "the computing tasks");
    }

    @Test
    void aThousandBlockedTasksStayWithinMaxCarriersAndSparesRetire() throws InterruptedException {
        int procs = 2;
        int maxCarriers = 16;
        Duration keepAlive = Duration.ofMillis(300);
        try (GmpScheduler s = GmpScheduler.builder().procs(procs).maxCarriers(maxCarriers)
                .keepAlive(keepAlive).build()) {
            int tasks = 1_000;
            CountDownLatch done = new CountDownLatch(tasks);
            Set<Thread> carriersSeen = ConcurrentHashMap.newKeySet();
            AtomicInteger mostCarriers = new AtomicInteger();
            AtomicInteger mostAlive = new AtomicInteger();
            AtomicBoolean watching = new AtomicBoolean(true);
            Thread watcher = Thread.ofPlatform().start(() -> {
                while (watching.get()) {
                    mostCarriers.accumulateAndGet(s.snapshot().carriers(), Math::max);
                    // Threads, not the count: spares retire and new ones start, so only those
                    // alive at once are bounded.
                    mostAlive.accumulateAndGet((int) carriersSeen.stream().filter(Thread::isAlive).count(), Math::max);
                    Thread.onSpinWait();
                }
            });
            for (int i = 0; i < tasks; i++) {
                s.execute(() -> {
                    carriersSeen.add(Thread.currentThread());
                    sleepUninterruptibly(Duration.ofMillis(10)); // blocked, TIMED_WAITING
                    done.countDown();
                });
            }
            Probe.await(done, Probe.BOUND, s, "every blocked task");
            watching.set(false);
            watcher.join();
            SchedulerSnapshot afterWork = s.snapshot();
            assertTrue(mostCarriers.get() <= maxCarriers, "carriers peaked at " + mostCarriers.get());
            assertTrue(mostAlive.get() <= maxCarriers, mostAlive.get() + " carrier threads alive at once");
            assertTrue(carriersSeen.size() > procs, "no carrier compensation: " + afterWork);
            assertTrue(afterWork.handoffs() > 0, afterWork.toString());
            Probe.awaitTrue(() -> s.snapshot().carriers() == procs, Probe.BOUND, s,
                    "spare carriers to retire after the keep-alive");
            // A retired carrier leaves the count under the lock, then its thread ends.
            Probe.awaitTrue(() -> carriersSeen.stream().filter(Thread::isAlive).count() == procs, Probe.BOUND, s,
                    "the retired carriers' threads to end");
        }
    }

    @Test
    void closeWaitsForATaskWhoseCarrierLostItsP() {
        GmpScheduler s = GmpScheduler.builder().procs(1).build();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        s.execute(() -> {
            Probe.block(release);
            s.execute(ran::incrementAndGet); // submitted by the detached carrier while closing
        });
        CountDownLatch probe = new CountDownLatch(1);
        s.execute(probe::countDown);
        Probe.await(probe, Probe.BOUND, s, "the probe behind the blocked carrier");
        Thread closer = Thread.ofPlatform().start(s::close);
        Probe.awaitTrue(s::isClosed, Probe.BOUND, s, "close() to begin");
        release.countDown();
        Probe.closeWithin(s, Probe.BOUND);
        assertTrue(!closer.isAlive() || joined(closer), "close() returned");
        assertEquals(1, ran.get(), "the task submitted by the detached carrier ran before termination");
    }

    private static boolean joined(Thread thread) {
        try {
            return thread.join(Probe.BOUND);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }


    private static void sleepUninterruptibly(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The shape with procs = 2: B blocks its carrier on P0 ({@code latch.await()}); W, on
     * P1, schedules a timer 20 ms out and then computes for 2 s with no poll (a plain Runnable,
     * which sysmon cannot preempt). The timer is in P1's heap, behind W; P0 has no work of its
     * own. Sysmon must hand P0 off for P1's overdue timer, and P0's new carrier runs it (other
     * Ps' due timers, step 6 of findRunnable). Before, hasWorkFor(P0) looked only at P0's own
     * queue and timers, and the timer fired when W ended, 2 s late.
     */
    @Test
    void aTimerOverdueBehindATaskThatCannotYieldIsRunByABlockedCarriersP() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("overdue").build()) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocked = new CountDownLatch(1);
            s.execute(() -> {
                blocked.countDown();
                Probe.block(release);
            });
            Probe.await(blocked, Probe.BOUND, s, "B blocking its carrier");
            CountDownLatch fired = new CountDownLatch(1);
            java.util.concurrent.atomic.AtomicLong late = new java.util.concurrent.atomic.AtomicLong(-1);
            AtomicBoolean stop = new AtomicBoolean();
            s.execute(() -> {
                long due = System.nanoTime() + 20_000_000;
                s.schedule(() -> {
                    late.set(System.nanoTime() - due);
                    fired.countDown();
                }, 20_000_000);
                long until = System.nanoTime() + 2_000_000_000L;
                while (!stop.get() && System.nanoTime() - until < 0) {
                    Thread.onSpinWait(); // computes, and never polls
                }
            });
            try {
                Probe.await(fired, Probe.BOUND, s, "the timer behind W");
                assertTrue(late.get() < 1_000_000_000L, "the timer fired " + late.get() / 1_000_000
                        + " ms late, as if it waited for W\n" + s.snapshot());
            } finally {
                stop.set(true);
                release.countDown();
            }
        }
    }

    /**
     * The timer sleeper, handed a P the way sysmon's hand-off hands one (no spinning, so it wakes
     * no other carrier) for a long task, gives the role to the other parked carrier, which sleeps
     * until the earliest timer. Before, the role was dropped: the timers of idle Ps had nobody
     * until some carrier parked again. White-box: the hand-over is made here as
     * {@code HandOff.handOff} makes it, with the task on the global queue.
     */
    @Test
    void aTimerSleeperHandedAPPassesTheRoleToAnotherParkedCarrier() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).maxCarriers(8).name("sleeper").withoutSysmon().build()) {
            // Two carriers, both parked: two tasks at once need both Ps.
            CountDownLatch both = new CountDownLatch(2);
            CountDownLatch go = new CountDownLatch(1);
            for (int i = 0; i < 2; i++) {
                s.execute(() -> {
                    both.countDown();
                    Probe.block(go);
                });
            }
            Probe.await(both, Probe.BOUND, s, "two carriers");
            go.countDown();
            Probe.awaitTrue(() -> s.snapshot().idleCarriers() == 2 && s.snapshot().idleProcs() == 2, Probe.BOUND, s,
                    "both carriers parked");
            java.util.concurrent.Future<?> far = s.schedule(() -> { }, TimeUnit.HOURS.toNanos(1));
            Probe.awaitTrue(() -> s.scheduling.parking.sleeper() != null && s.snapshot().idleCarriers() == 2,
                    Probe.BOUND, s, "a timer sleeper, parked");
            Carrier sleeper = s.scheduling.parking.sleeper();
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch hold = new CountDownLatch(1);
            try {
                Scheduling scheduling = s.scheduling;
                Processor p;
                Parking.Reservation reserved = null;
                scheduling.lock.lock();
                try {
                    p = scheduling.idle.getP();
                    reserved = Probe.reserveParked(scheduling.parking, sleeper, 2); // the sleeper; the other stays parked
                } finally {
                    scheduling.lock.unlock();
                }
                assertEquals(sleeper, reserved.parked());
                scheduling.global.putReady(() -> { // the long task, for whoever holds a P next
                    running.countDown();
                    Probe.block(hold);
                });
                scheduling.parking.handTo(reserved, p, false);
                Probe.await(running, Probe.BOUND, s, "the old sleeper's long task");
                Probe.awaitTrue(() -> {
                    Carrier now = s.scheduling.parking.sleeper();
                    return now != null && now != sleeper;
                }, Probe.BOUND, s, "the other carrier sleeping for the timer");
            } finally {
                hold.countDown();
                far.cancel(false); // close() would wait for it
            }
        }
    }

    /**
     * procs = 1: task A queues B on its own P, then blocks entering a monitor that a platform
     * thread holds until B has run. A's carrier is BLOCKED, which counts as a futex wait: handed
     * off only while this JVM has a CPU to spare. Here it never has (as in a container whose
     * /proc shows a busy host): the veto must end after CPU_VETO_LIMIT_NANOS, or this is a
     * deadlock for as long as the machine stays busy, which it was before the veto had a bound.
     */
    @Test
    void aMonitorWaitIsHandedOffInTheEndEvenWithNoCpuToSpare() throws InterruptedException {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("veto").injectCpuToSpare(() -> false).build()) {
            Object lock = new Object();
            CountDownLatch bRan = new CountDownLatch(1);
            CountDownLatch aEntered = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            Thread holder = Thread.ofPlatform().start(() -> {
                synchronized (lock) {
                    holding.countDown();
                    Probe.block(bRan); // released only once B has run
                }
            });
            Probe.await(holding, Probe.BOUND, s, "the platform thread holding the monitor");
            long start = System.nanoTime();
            s.execute(() -> {
                s.execute(bRan::countDown); // B, behind A on the one P
                synchronized (lock) { // A blocks its carrier: BLOCKED on a monitor
                    aEntered.countDown();
                }
            });
            Probe.await(aEntered, Probe.BOUND, s, "A entering the monitor, once B ran on a carrier A's P was handed to");
            long took = System.nanoTime() - start;
            assertTrue(s.snapshot().handoffs() >= 1, s.snapshot().toString());
            assertTrue(took >= BlockedCheck.FUTEX_HANDOFF_AFTER_NANOS, "handed off before a monitor wait counts: " + took);
            holder.join();
        }
    }


    /**
     * A lock convoy: task A queues B on its own P (procs = 1), then waits on its carrier for a
     * ReentrantLock that a platform thread holds until B has run. Waiting for a lock counts as
     * blocking once it has lasted as long as a monitor wait must: before, it never did, and this
     * stalled for ever (with virtual threads, when the lock's next owner is one queued behind the
     * waiting carriers, every P can stall so).
     */
    @Test
    void aCarrierWaitingLongForAReentrantLockHandsItsPOff() throws InterruptedException {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("convoy").build()) {
            java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
            CountDownLatch bRan = new CountDownLatch(1);
            CountDownLatch aLocked = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            Thread holder = Thread.ofPlatform().start(() -> {
                lock.lock();
                try {
                    holding.countDown();
                    Probe.block(bRan); // released only once B has run
                } finally {
                    lock.unlock();
                }
            });
            Probe.await(holding, Probe.BOUND, s, "the platform thread holding the lock");
            s.execute(() -> {
                s.execute(bRan::countDown); // B, behind A on the one P
                lock.lock(); // A waits on its carrier
                try {
                    aLocked.countDown();
                } finally {
                    lock.unlock();
                }
            });
            Probe.await(aLocked, Probe.BOUND, s, "A taking the lock, once B ran on a carrier A's P was handed to");
            assertTrue(s.snapshot().handoffs() >= 1, s.snapshot().toString());
            holder.join();
        }
    }

}
