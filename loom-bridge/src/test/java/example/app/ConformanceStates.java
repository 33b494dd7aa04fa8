package example.app;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static example.app.ConformanceSupport.awaitState;
import static example.app.ConformanceSupport.carrierOf;
import static example.app.ConformanceSupport.gmpSnapshot;
import static example.app.ConformanceSupport.join;
import static example.app.ConformanceSupport.print;
import static example.app.ConformanceSupport.require;

/**
 * {@code Thread.getState()} and {@code interrupt()} of virtual threads wherever a scheduler keeps
 * them, which a scheduler change puts at risk. Run with {@code -Djdk.virtualThreadScheduler.parallelism=1}
 * and {@code -Dgmp.preempt=false} (the spinner below must not yield at a preemption poll), with the
 * loom-gmp agent and without it; prints {@code key=value} lines for {@code VirtualThreadConformanceIT}.
 *
 * <p><b>Queued, runnable but not running.</b> A virtual thread spins on the single P (or the
 * ForkJoinPool's single worker) without ever yielding. From it, two threads are started and two
 * parked threads unparked, so that under GMP the last one waits in the P's {@code runnext} and the
 * three it displaced in the P's local ring; from the (platform) main thread, two are started and
 * one parked thread is unparked, which puts them on the global queue. Each must report
 * {@code RUNNABLE}; five are interrupted while queued and must see the interrupt once they run
 * ({@code isInterrupted()}, then {@code sleep} throwing); two controls are not interrupted. None
 * may run before the spinner stops. A thread whose 100 ms sleep began before the spinner is looked
 * at after 300 ms: its timeout has to run on the busy carrier under both schedulers (a timer of the
 * P's heap under GMP, a delayed task of the pool in JDK 25's ForkJoinPool), so it is still
 * {@code TIMED_WAITING}; interrupted, it becomes {@code RUNNABLE} (queued from outside) and its
 * sleep throws. The stacks of the queued threads are read ({@code Thread.getStackTrace()}), which
 * makes the JDK submit each unparked one a second time; each must still run once and normally.
 * Under the agent the P's queues and timers are printed from the scheduler's snapshot, to show
 * that the threads really waited where intended.
 *
 * <p><b>Blocked (timers, parks, waits).</b> With the P free: {@code sleep}, {@code parkNanos} and a
 * timed {@code Object.wait} (timers of a P's heap under the agent) must report
 * {@code TIMED_WAITING}; {@code park} and {@code Object.wait} {@code WAITING}; a thread entering a
 * held monitor {@code BLOCKED}. Each is woken by {@code interrupt}, {@code unpark}, {@code notify}
 * or the monitor's release, and the time until it ran again is printed (the timed ones wait for
 * 60 s, so only the wake-up can end them within the IT's bound); a 1 s sleep must end on time.
 */
public final class ConformanceStates {
    private static volatile boolean spinning;
    private static volatile boolean localRequested;
    private static volatile boolean localDone;
    private static volatile boolean release;
    private static volatile boolean spinTimedOut;
    private static volatile String spinnerCarrier;
    /** How long q-sleep-due sleeps; it is looked at once three times this has passed. */
    private static final long DUE_SLEEP_MILLIS = 100;

    private static final Map<String, String> outcomes = new ConcurrentHashMap<>();
    private static final Map<String, Long> endNanos = new ConcurrentHashMap<>();
    private static final Map<String, String> carriers = new ConcurrentHashMap<>();

    private ConformanceStates() {
    }

    public static void main(String[] args) throws Exception {
        queued();
        blocked();
        print("done", true);
    }

    // ------------------------------------------------------------------ queued behind a spinner

    /** A virtual thread that waits in a queue, then records what it observes when it runs. */
    private static final class Waiter implements Runnable {
        final String name;
        final boolean parksFirst;
        final boolean sleepsFirst;
        final boolean interruptWhileQueued;
        final AtomicBoolean released = new AtomicBoolean();
        Thread thread;
        final AtomicInteger runs = new AtomicInteger();
        volatile boolean firstSleepThrew;
        volatile boolean ranWhileSpinning;
        volatile boolean interrupted;
        volatile boolean sleepThrew;
        volatile boolean interruptStatusAfterSleep;
        volatile String carrier = "never ran";

        Waiter(String name, boolean parksFirst, boolean interruptWhileQueued) {
            this(name, parksFirst, false, interruptWhileQueued);
        }

        Waiter(String name, boolean parksFirst, boolean sleepsFirst, boolean interruptWhileQueued) {
            this.name = name;
            this.parksFirst = parksFirst;
            this.sleepsFirst = sleepsFirst;
            this.interruptWhileQueued = interruptWhileQueued;
        }

        @Override
        public void run() {
            runs.incrementAndGet();
            if (sleepsFirst) {
                try {
                    Thread.sleep(DUE_SLEEP_MILLIS);
                    firstSleepThrew = false;
                } catch (InterruptedException e) {
                    firstSleepThrew = true;
                }
            }
            if (parksFirst) {
                while (!released.get() && !Thread.currentThread().isInterrupted()) {
                    LockSupport.park();
                }
            }
            ranWhileSpinning = !release;
            carrier = carrierOf(Thread.currentThread());
            interrupted = Thread.currentThread().isInterrupted();
            try {
                Thread.sleep(1);
                sleepThrew = false;
            } catch (InterruptedException e) {
                sleepThrew = true;
            }
            interruptStatusAfterSleep = Thread.currentThread().isInterrupted();
        }

        void unpark() {
            released.set(true);
            LockSupport.unpark(thread);
        }
    }

    private static void queued() throws InterruptedException {
        Waiter runnextUnparked = new Waiter("q-runnext-unparked", true, true);
        Waiter ringStarted = new Waiter("q-ring-started", false, true);
        Waiter ringUnparked = new Waiter("q-ring-unparked", true, true);
        Waiter ringControl = new Waiter("q-ring-control", false, false);
        Waiter globalStarted = new Waiter("q-global-started", false, true);
        Waiter globalUnparked = new Waiter("q-global-unparked", true, true);
        Waiter globalControl = new Waiter("q-global-control", false, false);
        Waiter sleepDue = new Waiter("q-sleep-due", false, true, true);
        List<Waiter> waiters = List.of(runnextUnparked, ringStarted, ringUnparked, ringControl,
                globalStarted, globalUnparked, globalControl, sleepDue);
        long sleepStart = System.nanoTime();
        for (Waiter w : waiters) {
            boolean runsFirst = w.parksFirst || w.sleepsFirst;
            w.thread = runsFirst ? Thread.ofVirtual().name(w.name).start(w) : Thread.ofVirtual().name(w.name).unstarted(w);
        }
        for (Waiter w : waiters) {
            if (w.parksFirst || w.sleepsFirst) {
                Thread.State state = w.parksFirst ? Thread.State.WAITING : Thread.State.TIMED_WAITING;
                require(() -> w.thread.getState() == state, w.name + " " + state,
                        () -> w.thread.getState().toString());
            }
        }

        Thread spinner = Thread.ofVirtual().name("q-spinner").start(() -> {
            spinnerCarrier = carrierOf(Thread.currentThread());
            spinning = true;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!release) { // no call that can park or yield, and no preemption poll (gmp.preempt=false)
                if (localRequested && !localDone) {
                    // From a virtual thread on the carrier: each goes to runnext, displacing the
                    // previous one to the tail of the local ring (GMP), or to the worker's queue (FJP).
                    ringStarted.thread.start();
                    ringUnparked.unpark();
                    ringControl.thread.start();
                    runnextUnparked.unpark();
                    localDone = true;
                }
                if (System.nanoTime() - deadline > 0) {
                    spinTimedOut = true;
                    break;
                }
            }
        });
        require(() -> spinning, "the spinner runs", () -> spinner.getState().toString());
        localRequested = true;
        require(() -> localDone, "the spinner started and unparked its four threads", () -> "");
        // From a platform thread: the global queue (GMP), the pool's submission queue (FJP).
        globalStarted.thread.start();
        globalControl.thread.start();
        globalUnparked.unpark();
        // q-sleep-due's sleep is over, but its timeout runs on the busy carrier: under GMP a timer
        // of the P's heap, under the JDK 25 ForkJoinPool a delayed task of the pool. Until then it
        // still waits for it, TIMED_WAITING.
        long dueFor = TimeUnit.MILLISECONDS.toNanos(3 * DUE_SLEEP_MILLIS) - (System.nanoTime() - sleepStart);
        if (dueFor > 0) {
            TimeUnit.NANOSECONDS.sleep(dueFor);
        }

        printQueues("queued.gmp.before.");
        for (Waiter w : waiters) {
            print("queued." + w.name + ".state", w.thread.getState());
        }
        for (Waiter w : waiters) {
            if (w.interruptWhileQueued) {
                w.thread.interrupt();
            }
        }
        for (Waiter w : waiters) {
            print("queued." + w.name + ".stateAfterInterrupt", w.thread.getState());
        }
        printQueues("queued.gmp.after.");
        // Reading the stack of an unmounted runnable thread suspends it and then submits it again
        // (VirtualThread.tryGetStackTrace: "the task may have run while suspended"), so a scheduler
        // must cope with the same continuation queued twice: it still runs once.
        for (Waiter w : waiters) {
            print("queued." + w.name + ".stack", Arrays.stream(w.thread.getStackTrace())
                    .map(f -> f.getClassName() + "." + f.getMethodName()).collect(Collectors.joining(",")));
        }
        printQueues("queued.gmp.afterStacks.");
        print("queued.spinner.state", spinner.getState());
        print("queued.spinner.carrier", spinnerCarrier);

        release = true;
        join(spinner);
        print("queued.spinner.timedOut", spinTimedOut);
        for (Waiter w : waiters) {
            join(w.thread);
            String key = "queued." + w.name;
            print(key + ".ranWhileSpinning", w.ranWhileSpinning);
            print(key + ".interruptedWhenRun", w.interrupted);
            print(key + ".sleepThrew", w.sleepThrew);
            print(key + ".interruptStatusAfterSleep", w.interruptStatusAfterSleep);
            print(key + ".carrier", w.carrier);
            print(key + ".runs", w.runs.get());
            if (w.sleepsFirst) {
                print(key + ".firstSleepThrew", w.firstSleepThrew);
            }
        }
        // The second submissions of the threads whose stacks were read find them already run, and leave.
        gmpSnapshot().ifPresent(ignored -> {
            ConformanceSupport.await(() -> gmpSnapshot().orElseThrow().processors().get(0).runnable() == 0
                    && gmpSnapshot().orElseThrow().globalQueueLength() == 0, ConformanceSupport.BOUND);
            printQueues("queued.gmp.end.");
        });
    }

    private static void printQueues(String prefix) {
        gmpSnapshot().ifPresent(s -> {
            print(prefix + "procs", s.procs());
            print(prefix + "runnext", s.processors().get(0).runnextOccupied());
            print(prefix + "local", s.processors().get(0).localQueueLength());
            print(prefix + "global", s.globalQueueLength());
            print(prefix + "pendingTimers", s.pendingTimers());
        });
    }

    // ------------------------------------------------------------------ blocked: timers, parks, waits

    private static Thread blocker(String name, Callable<String> body) {
        return Thread.ofVirtual().name(name).start(() -> {
            String outcome;
            try {
                outcome = body.call();
            } catch (Throwable e) {
                outcome = e.getClass().getSimpleName();
            }
            endNanos.put(name, System.nanoTime());
            carriers.put(name, carrierOf(Thread.currentThread()));
            outcomes.put(name, outcome + (Thread.currentThread().isInterrupted() ? "+interruptStatus" : ""));
        });
    }

    private static volatile boolean parkReleased;
    private static volatile boolean parkNanosReleased;
    private static boolean notified; // guarded by WAIT_LOCK
    private static final Object WAIT_LOCK = new Object();
    private static final Object TIMED_WAIT_LOCK = new Object();
    private static final Object MONITOR = new Object();
    private static final long LONG_NANOS = TimeUnit.SECONDS.toNanos(60);

    private static void blocked() throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        Thread sleep = blocker("b-sleep", () -> {
            Thread.sleep(60_000);
            return "returned";
        });
        Thread park = blocker("b-park", () -> {
            long deadline = System.nanoTime() + LONG_NANOS;
            while (!parkReleased && System.nanoTime() - deadline < 0) {
                LockSupport.park();
            }
            return parkReleased ? "unparked" : "gave up";
        });
        Thread parkInterrupt = blocker("b-park-interrupt", () -> {
            long deadline = System.nanoTime() + LONG_NANOS;
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() - deadline < 0) {
                LockSupport.park();
            }
            return Thread.currentThread().isInterrupted() ? "woke" : "gave up";
        });
        Thread parkNanos = blocker("b-parknanos", () -> {
            long deadline = System.nanoTime() + LONG_NANOS;
            long left;
            while (!parkNanosReleased && (left = deadline - System.nanoTime()) > 0) {
                LockSupport.parkNanos(left);
            }
            return parkNanosReleased ? "unparked" : "timed out";
        });
        Thread parkNanosInterrupt = blocker("b-parknanos-interrupt", () -> {
            long deadline = System.nanoTime() + LONG_NANOS;
            long left;
            while (!Thread.currentThread().isInterrupted() && (left = deadline - System.nanoTime()) > 0) {
                LockSupport.parkNanos(left);
            }
            return Thread.currentThread().isInterrupted() ? "woke" : "timed out";
        });
        Thread await = blocker("b-wait", () -> {
            synchronized (WAIT_LOCK) {
                while (!notified) {
                    WAIT_LOCK.wait(); // untimed: WAITING; a lost notify shows as a join that times out
                }
                return "notified";
            }
        });
        Thread timedWaitInterrupt = blocker("b-timed-wait-interrupt", () -> {
            synchronized (TIMED_WAIT_LOCK) {
                long deadline = System.nanoTime() + LONG_NANOS;
                long left;
                while ((left = deadline - System.nanoTime()) > 0) {
                    TIMED_WAIT_LOCK.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
                return "timed out";
            }
        });
        threads.addAll(List.of(sleep, park, parkInterrupt, parkNanos, parkNanosInterrupt, await, timedWaitInterrupt));

        print("blocked.b-sleep.state", awaitState(sleep, Thread.State.TIMED_WAITING));
        print("blocked.b-park.state", awaitState(park, Thread.State.WAITING));
        print("blocked.b-park-interrupt.state", awaitState(parkInterrupt, Thread.State.WAITING));
        print("blocked.b-parknanos.state", awaitState(parkNanos, Thread.State.TIMED_WAITING));
        print("blocked.b-parknanos-interrupt.state", awaitState(parkNanosInterrupt, Thread.State.TIMED_WAITING));
        print("blocked.b-wait.state", awaitState(await, Thread.State.WAITING));
        print("blocked.b-timed-wait-interrupt.state", awaitState(timedWaitInterrupt, Thread.State.TIMED_WAITING));
        gmpSnapshot().ifPresent(s -> print("blocked.gmp.pendingTimers", s.pendingTimers()));

        wake(sleep, sleep::interrupt);
        wake(park, () -> {
            parkReleased = true;
            LockSupport.unpark(park);
        });
        wake(parkInterrupt, parkInterrupt::interrupt);
        wake(parkNanos, () -> {
            parkNanosReleased = true;
            LockSupport.unpark(parkNanos);
        });
        wake(parkNanosInterrupt, parkNanosInterrupt::interrupt);
        wake(await, () -> {
            synchronized (WAIT_LOCK) {
                notified = true;
                WAIT_LOCK.notifyAll();
            }
        });
        wake(timedWaitInterrupt, timedWaitInterrupt::interrupt);

        Thread blockedOnMonitor;
        long released;
        synchronized (MONITOR) {
            blockedOnMonitor = blocker("b-monitor", () -> {
                synchronized (MONITOR) {
                    return "entered";
                }
            });
            threads.add(blockedOnMonitor);
            print("blocked.b-monitor.state", awaitState(blockedOnMonitor, Thread.State.BLOCKED));
            released = System.nanoTime();
        }
        join(blockedOnMonitor);
        report(blockedOnMonitor, released);

        long sleepStart = System.nanoTime();
        Thread shortSleep = blocker("b-sleep-1s", () -> {
            long start = System.nanoTime();
            Thread.sleep(1_000);
            return "slept " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms";
        });
        print("blocked.b-sleep-1s.state", awaitState(shortSleep, Thread.State.TIMED_WAITING));
        join(shortSleep);
        report(shortSleep, sleepStart);

        for (Thread t : threads) {
            join(t);
        }
        gmpSnapshot().ifPresent(s -> print("blocked.gmp.pendingTimersAfter", s.pendingTimers()));
    }

    /** Runs {@code action} on a blocked thread, waits for it to end, and prints how it ended and how soon. */
    private static void wake(Thread thread, Runnable action) throws InterruptedException {
        long start = System.nanoTime();
        action.run();
        join(thread);
        report(thread, start);
    }

    private static void report(Thread thread, long wokenAtNanos) {
        String key = "blocked." + thread.getName();
        print(key + ".outcome", outcomes.get(thread.getName()));
        print(key + ".wakeMillis", TimeUnit.NANOSECONDS.toMillis(endNanos.get(thread.getName()) - wokenAtNanos));
        print(key + ".carrier", carriers.get(thread.getName()));
    }
}
