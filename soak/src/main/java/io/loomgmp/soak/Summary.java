package io.loomgmp.soak;

import io.loomgmp.dispatcher.Placement;
import io.loomgmp.dispatcher.SchedulerFailure;
import io.loomgmp.dispatcher.SchedulerSnapshot;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The soak's verdict: what it did, then each check with {@code ok} or {@code FAILED} and its
 * figures, the details of the first violations, and a last line, {@code soak: PASSED} or
 * {@code soak: FAILED (n checks)}. A check that cannot be made (the drain or the rest before it
 * failed) fails, saying why.
 *
 * <h2>The heap tolerance</h2>
 * At rest after the soak, the heap after a collection may exceed the baseline by at most
 * {@value #HEAP_SLACK_MIB} MiB or {@value #HEAP_SLACK_PERCENT} %, whichever is more. Growth that
 * is no leak stays inside that: the largest is JFR's string pool
 * ({@code jdk.jfr.internal.StringPool}), which keeps every event string of 16 characters or more
 * that it has written, up to 32,768 of them, across recordings: each {@code loomgmp.SchedLatency}
 * event's histogram text is a new one (about 0.2 MiB a minute in this mix, found with heap
 * dumps; some 14 MiB once the pool is full). The rest is small: timer heaps' arrays grown to the
 * run's peak, the soak's counters. A leak of one small object per task, timer or virtual thread
 * goes past the slack within the one-minute run (millions of each); one per resize or carrier
 * start needs a long soak to show.
 */
final class Summary {
    static final long HEAP_SLACK_MIB = 32;
    static final long HEAP_SLACK_PERCENT = 25;
    /**
     * The longest the scheduler may go with work outstanding and none settling: well past the
     * longest timer, sleep or park ({@link Work#FAR_MAX_NANOS}, the only wait a drain's last
     * units have) and the watchdog's one-second looks, far below anything a loaded machine
     * explains (tens of thousands of units settle each second).
     */
    static final Duration STALL_LIMIT = Duration.ofSeconds(10);

    /** One check. */
    record Check(String name, boolean ok, String figures) {
    }

    private final SoakOptions options;
    private final int initialProcs;
    private final Ledger ledger;
    private final Faults faults;
    private final Set<SchedulerFailure.Site> sitesReported;
    private final SchedulerSnapshot beforeClose;
    private final Soak.Resting baseline;
    private final Soak.Resting end;
    private final boolean drained;
    private final Soak.Closing closing;
    private final Duration elapsed;
    private final Duration longestStall;
    private final String longestStallStage;
    private final List<Check> checks = new ArrayList<>();

    Summary(SoakOptions options, int initialProcs, Ledger ledger, Faults faults, Set<SchedulerFailure.Site> sitesReported,
            SchedulerSnapshot beforeClose, Soak.Resting baseline, Soak.Resting end, boolean drained, Soak.Closing closing,
            Duration elapsed, Duration longestStall, String longestStallStage) {
        this.options = options;
        this.initialProcs = initialProcs;
        this.ledger = ledger;
        this.faults = faults;
        this.sitesReported = sitesReported;
        this.beforeClose = beforeClose;
        this.baseline = baseline;
        this.end = end;
        this.drained = drained;
        this.closing = closing;
        this.elapsed = elapsed;
        this.longestStall = longestStall;
        this.longestStallStage = longestStallStage;
        check();
    }

    boolean passed() {
        return checks.stream().allMatch(Check::ok);
    }

    List<Check> checks() {
        return List.copyOf(checks);
    }

    private void check() {
        String undrained = drained ? "" : " (NOT drained: some never settled)";
        long taskViolations = ledger.violations(Ledger.Violation.RAN_TWICE);
        long tasksLost = lost(Ledger.Kind.TASK, Ledger.Kind.BLOCKING_TASK, Ledger.Kind.HOG_TASK);
        checks.add(new Check("every task ran exactly once", tasksLost == 0 && taskViolations == 0,
                String.format(Locale.ROOT, "%,d tasks; %,d lost, %,d runs of work that had run%s", made(Ledger.Kind.TASK,
                        Ledger.Kind.BLOCKING_TASK, Ledger.Kind.HOG_TASK), tasksLost, taskViolations, undrained)));

        long timersLost = lost(Ledger.Kind.TIMER);
        long early = ledger.violations(Ledger.Violation.TIMER_EARLY);
        long cancelledRan = ledger.violations(Ledger.Violation.CANCELLED_TIMER_RAN);
        long[] late = ledger.lateTimers();
        checks.add(new Check("every timer not cancelled fired, none early; no cancelled one ran",
                timersLost == 0 && early == 0 && cancelledRan == 0,
                String.format(Locale.ROOT, "%,d timers: %,d fired (late by %.1f ms on average, %.1f ms at most; %,d over 10 ms, %,d over"
                                + " 100 ms, %,d over 1 s), %,d cancelled (%,d cancels raced the run, %,d came after it);"
                                + " %,d lost, %,d early, %,d cancelled ones ran%s",
                        made(Ledger.Kind.TIMER), ledger.timersFired.sum(), ledger.meanTimerLatenessNanos() / 1e6,
                        ledger.maxTimerLatenessNanos() / 1e6, late[0], late[1], late[2], ledger.timersCancelled.sum(),
                        ledger.cancelsRacingTheRun.sum(), ledger.cancelsTooLate.sum(), timersLost, early, cancelledRan,
                        undrained)));

        long threadsLost = 0;
        long threads = 0;
        for (Ledger.Kind kind : Ledger.Kind.values()) {
            if (kind.isVirtualThread()) {
                threadsLost += lost(kind);
                threads += made(kind);
            }
        }
        long parkEarly = ledger.violations(Ledger.Violation.PARK_EARLY);
        long sleepEarly = ledger.violations(Ledger.Violation.SLEEP_EARLY);
        checks.add(new Check("every virtual thread ended; no timed park or sleep returned early",
                threadsLost == 0 && parkEarly == 0 && sleepEarly == 0,
                String.format(Locale.ROOT, "%,d virtual threads; %,d parks cut short by an unpark, %,d timed out; %,d waits notified;"
                                + " %,d lost, %,d parks and %,d sleeps early%s", threads, ledger.parksUnparked.sum(),
                        ledger.parksTimedOut.sum(), ledger.waitsNotified.sum(), threadsLost, parkEarly, sleepEarly, undrained)));

        long leaked = ledger.violations(Ledger.Violation.INTERRUPT_LEAKED);
        checks.add(new Check("no task or timer started on a carrier left interrupted", leaked == 0,
                String.format(Locale.ROOT, "%,d carriers interrupted by their task; %,d tasks found one interrupted",
                        ledger.carriersInterrupted.sum(), leaked)));

        long thrown = ledger.thrownByTasks.sum();
        long reached = ledger.thrownReachedHandler.sum();
        long twice = ledger.violations(Ledger.Violation.REPORTED_TWICE);
        checks.add(new Check("every exception a task threw reached the handler once", thrown == reached && twice == 0,
                String.format(Locale.ROOT, "%,d thrown, %,d reached the handler, %,d reached it again; %,d were thrown by"
                        + " timers whose cancel raced their run", thrown, reached, twice, ledger.thrownByRacedTimers.sum())));

        long injected = faults.injected();
        long reported = beforeClose.failures();
        checks.add(new Check("every injected carrier failure was reported once", injected == reported,
                String.format(Locale.ROOT, "%,d injected (%,d in the loop, %,d refused starts, %,d timer moves), %,d reported (sites %s)",
                        injected, faults.loopFaults.get(), faults.refusedStarts.get(), faults.timerMoveFaults.get(), reported,
                        sitesReported)));

        long unexpected = ledger.violations(Ledger.Violation.UNEXPECTED_FAILURE)
                + ledger.violations(Ledger.Violation.OPERATION_FAILED) + ledger.violations(Ledger.Violation.RELEASE_LATE);
        checks.add(new Check("no scheduler operation threw, no failure came that was not injected, no release was late",
                unexpected == 0, String.format(Locale.ROOT, "%,d operations threw, %,d unexpected failures, %,d late releases",
                ledger.violations(Ledger.Violation.OPERATION_FAILED), ledger.violations(Ledger.Violation.UNEXPECTED_FAILURE),
                ledger.violations(Ledger.Violation.RELEASE_LATE))));

        checks.add(new Check("work never stopped for long: no stall over " + STALL_LIMIT.toSeconds() + " s",
                longestStall.compareTo(STALL_LIMIT) <= 0, String.format(Locale.ROOT, "the longest stretch with work outstanding and none"
                        + " settling: about %d s (%s), as seen at one-second looks", longestStall.toSeconds(), longestStallStage)));

        long jfr = ledger.violations(Ledger.Violation.JFR);
        checks.add(new Check("JFR recordings started and stopped, each with loom-gmp's events", jfr == 0,
                String.format(Locale.ROOT, "%,d always-on and %,d trace recordings; %,d without loom-gmp's events",
                        ledger.alwaysOnRecordings.sum(), ledger.traceRecordings.sum(), jfr)));

        checks.add(carriersAtRest());
        checks.add(heapAtRest());

        List<String> leftAlive = closing.threadsLeft();
        SchedulerSnapshot after = closing.after();
        boolean quiet = closing.returned() && closing.terminated() && leftAlive.isEmpty() && after.carriers() == 0
                && after.idleCarriers() == 0 && after.spinningCarriers() == 0 && after.blockedCarriers() == 0
                && after.globalQueueLength() == 0 && after.pendingPreemptRequests() == 0;
        checks.add(new Check("close() terminated the scheduler and ended every carrier thread", quiet,
                String.format(Locale.ROOT, "close %s, %s; %,d carrier threads made, %d still alive %s; after close: %d carriers, %d queued",
                        closing.returned() ? "returned" : "did NOT return", closing.terminated() ? "terminated" : "NOT terminated",
                        closing.carriersMade(), leftAlive.size(), leftAlive, after.carriers(), after.globalQueueLength())));

        List<String> missed = missedCoverage();
        checks.add(new Check("the soak exercised everything it claims to", missed.isEmpty(),
                missed.isEmpty() ? "every placement from every source, timers from each, parks, waits, pins, hogs, "
                        + "resizes both ways, every injected failure, hand-offs, preemptions, both JFR settings"
                        : "never happened: " + String.join(", ", missed)));
    }

    private Check carriersAtRest() {
        String name = "carriers back to the baseline at rest (spare ones retired)";
        if (baseline == null || end == null) {
            return new Check(name, false, "not measured: the drain before it failed");
        }
        int allowed = Math.max(baseline.snapshot().carriers(), initialProcs);
        SchedulerSnapshot e = end.snapshot();
        boolean ok = baseline.atRest() && end.atRest() && e.carriers() <= allowed && end.threadsAlive() == e.carriers();
        return new Check(name, ok, String.format(Locale.ROOT, "baseline %d, at the end %d (at most %d allowed), %d carrier threads alive;"
                        + " the baseline %s, the end %s", baseline.snapshot().carriers(), e.carriers(), allowed,
                end.threadsAlive(), restText(baseline), restText(end)));
    }

    private static String restText(Soak.Resting resting) {
        return resting.atRest() ? "at rest after " + resting.waited().toMillis() + " ms"
                : "NOT at rest after " + Soak.REST_BOUND.toSeconds() + " s (" + resting + ")";
    }

    private Check heapAtRest() {
        String name = "heap after a collection back to the baseline";
        if (baseline == null || end == null) {
            return new Check(name, false, "not measured: the drain before it failed");
        }
        long allowed = heapAllowed(baseline.heapBytes());
        return new Check(name, end.heapBytes() <= allowed, String.format(
                "baseline %,.1f MiB, at the end %,.1f MiB (%+,.1f MiB; at most %,.1f MiB allowed: +%d MiB or +%d %%)",
                baseline.heapBytes() / 1048576.0, end.heapBytes() / 1048576.0,
                (end.heapBytes() - baseline.heapBytes()) / 1048576.0, allowed / 1048576.0, HEAP_SLACK_MIB, HEAP_SLACK_PERCENT));
    }

    /** The most heap allowed at the end for {@code baselineBytes} at the start. */
    static long heapAllowed(long baselineBytes) {
        return baselineBytes + Math.max(HEAP_SLACK_MIB << 20, baselineBytes * HEAP_SLACK_PERCENT / 100);
    }

    private List<String> missedCoverage() {
        List<String> missed = new ArrayList<>();
        for (Ledger.Source source : Ledger.Source.values()) {
            for (Placement placement : Placement.values()) {
                if (ledger.submissions(source, placement) == 0) {
                    missed.add(placement + " from " + source.label);
                }
            }
            if (ledger.timers(source) == 0) {
                missed.add("a timer from " + source.label);
            }
        }
        for (Ledger.Kind kind : Ledger.Kind.values()) {
            if (ledger.settledCount(kind) == 0) {
                missed.add(kind.label);
            }
        }
        need(missed, ledger.timersFired.sum(), "a timer fired");
        need(missed, ledger.timersCancelled.sum(), "a timer cancelled");
        need(missed, ledger.parksUnparked.sum(), "a park cut short by an unpark");
        need(missed, ledger.parksTimedOut.sum(), "a park timed out");
        need(missed, ledger.pinEpisodes.sum(), "a class-initialiser pin");
        need(missed, ledger.thrownByTasks.sum(), "a task throwing");
        need(missed, ledger.carriersInterrupted.sum(), "a task interrupting its carrier");
        need(missed, ledger.grows.sum(), "a resize up");
        need(missed, ledger.shrinks.sum(), "a resize down");
        need(missed, faults.loopFaults.get(), "a carrier failure in the loop");
        need(missed, faults.refusedStarts.get(), "a refused carrier start");
        need(missed, faults.timerMoveFaults.get(), "a failed timer move");
        need(missed, beforeClose.handoffs(), "a hand-off of a blocked carrier's P");
        need(missed, beforeClose.preemptRequests(), "a preemption request");
        need(missed, ledger.alwaysOnRecordings.sum(), "an always-on JFR recording");
        need(missed, ledger.traceRecordings.sum(), "a trace JFR recording");
        return missed;
    }

    private static void need(List<String> missed, long count, String what) {
        if (count == 0) {
            missed.add(what);
        }
    }

    private long made(Ledger.Kind... kinds) {
        long total = 0;
        for (Ledger.Kind kind : kinds) {
            total += ledger.madeCount(kind);
        }
        return total;
    }

    private long lost(Ledger.Kind... kinds) {
        long total = 0;
        for (Ledger.Kind kind : kinds) {
            total += ledger.outstanding(kind);
        }
        return total;
    }

    void print(PrintStream out) {
        out.printf(Locale.ROOT, "%nsoak summary: seed %d, %s soaked after a %s warm-up, %s in all; Ps from 1 to %d (started with %d)%n",
                options.seed(), SoakOptions.text(options.duration()), SoakOptions.text(Soak.WARM_UP),
                SoakOptions.text(Duration.ofSeconds(elapsed.toSeconds())), options.maxProcs(), initialProcs);
        out.printf(Locale.ROOT, "  %-40s %14s %14s %12s%n", "work", "made", "settled", "outstanding");
        for (Ledger.Kind kind : Ledger.Kind.values()) {
            out.printf(Locale.ROOT, "  %-40s %,14d %,14d %,12d%n", kind.label, ledger.madeCount(kind), ledger.settledCount(kind),
                    ledger.outstanding(kind));
        }
        out.print("  submissions:");
        for (Ledger.Source source : Ledger.Source.values()) {
            out.print("  from " + source.label + ":");
            for (Placement placement : Placement.values()) {
                out.printf(Locale.ROOT, " %s %,d", placement, ledger.submissions(source, placement));
            }
        }
        out.printf(Locale.ROOT, "%n  timers from: platform threads %,d, carriers %,d, virtual threads %,d%n",
                ledger.timers(Ledger.Source.PLATFORM), ledger.timers(Ledger.Source.CARRIER), ledger.timers(Ledger.Source.VIRTUAL));
        out.printf(Locale.ROOT, "  scheduler: %,d tasks run, %,d hand-offs, %,d preemption requests, %,d steals, %,d timers fired,"
                        + " %,d failures reported; %,d pin episodes, %,d resizes (%,d up, %,d down)%n",
                beforeClose.tasksRun(), beforeClose.handoffs(), beforeClose.preemptRequests(), beforeClose.steals(),
                beforeClose.timersFired(), beforeClose.failures(), ledger.pinEpisodes.sum(),
                ledger.grows.sum() + ledger.shrinks.sum(), ledger.grows.sum(), ledger.shrinks.sum());
        out.println("checks:");
        for (Check check : checks) {
            out.printf(Locale.ROOT, "  %-6s %s: %s%n", check.ok() ? "ok" : "FAILED", check.name(), check.figures());
        }
        if (ledger.latestTimer() != null) {
            out.println("the latest timer: " + ledger.latestTimer());
        }
        List<String> details = ledger.violationDetails();
        if (!details.isEmpty()) {
            out.printf(Locale.ROOT, "violations (%,d; the first %d of each kind):%n", ledger.violations(), Ledger.DETAILS_KEPT);
            details.forEach(d -> out.println("  " + d));
        }
        long failed = checks.stream().filter(c -> !c.ok()).count();
        out.println(failed == 0 ? "soak: PASSED" : "soak: FAILED (" + failed + " of " + checks.size() + " checks)");
        out.flush();
    }
}
