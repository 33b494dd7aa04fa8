package io.loomgmp.soak;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;

/**
 * Prints a progress line every so often while the soak runs, e.g.
 * <pre>
 * [soak 35s/60s] tasks 1,234,567 (+35,120/s)  timers 12,345 fired 2,345 cancelled  vthreads 5,678  pins 12
 *   procs 3 (45 resizes)  injected 12 (loop 5, start 6, move 1)  carriers 7 (2 blocked)  hand-offs 30
 *   preemptions 400  jfr off  heap 45 MiB  in flight 1,234
 * </pre>
 * (one line; wrapped here): the work settled and its rate since the last line, timers, virtual
 * threads ended, pin episodes, Ps and resizes, failures injected, the scheduler's carriers (those
 * blocked in a task), its hand-offs and preemption requests, what JFR records, heap in use (not
 * after a collection) and the units outstanding; {@code VIOLATIONS n} at the end once there are any.
 *
 * <p>Its own daemon thread prints; {@link #phase} and {@link #jfr} may be called by any thread.
 */
final class Progress {
    private final Ledger ledger;
    private final Faults faults;
    private final GmpScheduler scheduler;
    private final PrintStream out;
    private final Duration every;
    private volatile String phase = "starting";
    private volatile long phaseStart = System.nanoTime();
    private volatile Duration phaseLength = Duration.ZERO;
    private volatile String jfr = "off";
    private volatile boolean stopped;
    private Thread thread;
    private long lastTasks;
    private long lastAt = System.nanoTime();

    Progress(Ledger ledger, Faults faults, GmpScheduler scheduler, PrintStream out, Duration every) {
        this.ledger = ledger;
        this.faults = faults;
        this.scheduler = scheduler;
        this.out = out;
        this.every = every;
    }

    void start() {
        thread = Thread.ofPlatform().daemon().name("soak-progress").start(this::loop);
    }

    void stop() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join();
    }

    /** A phase of {@code length} starts now. */
    void phase(String name, Duration length) {
        phaseLength = length;
        phaseStart = System.nanoTime();
        phase = name;
    }

    /** What JFR records now: {@code always-on}, {@code trace} or {@code off}. */
    void jfr(String recording) {
        jfr = recording;
    }

    private void loop() {
        while (!stopped) {
            try {
                Thread.sleep(every);
            } catch (InterruptedException e) {
                return;
            }
            out.println(line());
        }
    }

    /** The progress line; only the printing thread calls it (it keeps the rate's last figures). */
    String line() {
        long now = System.nanoTime();
        long tasks = ledger.settledCount(Ledger.Kind.TASK) + ledger.settledCount(Ledger.Kind.BLOCKING_TASK)
                + ledger.settledCount(Ledger.Kind.HOG_TASK);
        long rate = (tasks - lastTasks) * 1_000_000_000L / Math.max(1, now - lastAt);
        lastTasks = tasks;
        lastAt = now;
        long vthreads = 0;
        for (Ledger.Kind kind : Ledger.Kind.values()) {
            if (kind.isVirtualThread()) {
                vthreads += ledger.settledCount(kind);
            }
        }
        SchedulerSnapshot s = scheduler.snapshot();
        long heapMiB = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
        long violations = ledger.violations();
        return String.format(Locale.ROOT, "[%s %ds/%ds] tasks %,d (+%,d/s)  timers %,d fired %,d cancelled  vthreads %,d  pins %,d"
                        + "  procs %d (%,d resizes)  injected %,d (loop %,d, start %,d, move %,d)  carriers %d (%d blocked)"
                        + "  hand-offs %,d  preemptions %,d  jfr %s  heap %,d MiB  in flight %,d%s",
                phase, (now - phaseStart) / 1_000_000_000L, phaseLength.toSeconds(), tasks, rate,
                ledger.timersFired.sum(), ledger.timersCancelled.sum(), vthreads, ledger.pinEpisodes.sum(),
                s.procs(), ledger.grows.sum() + ledger.shrinks.sum(), faults.injected(), faults.loopFaults.get(),
                faults.refusedStarts.get(), faults.timerMoveFaults.get(), s.carriers(), s.blockedCarriers(),
                s.handoffs(), s.preemptRequests(), jfr, heapMiB, ledger.outstanding(),
                violations == 0 ? "" : "  VIOLATIONS " + violations);
    }
}
