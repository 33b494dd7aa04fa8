package io.loomgmp.bridge.agent;

import io.loomgmp.jfr.testing.MiniJson;

import example.app.ConformanceJfr;
import example.app.ConformanceShutdown;
import example.app.ConformanceStates;
import example.app.ConformanceThreadDump;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Virtual-thread behaviour that applications, tools and the JDK itself rely on, and that a
 * scheduler change puts at risk, checked in JVMs forked with the loom-gmp agent (every virtual
 * thread on GMP) and without it (the JDK's ForkJoinPool, the reference):
 * <ol>
 *   <li>{@code Thread.getState()} and {@code interrupt()} of a virtual thread waiting in each of
 *       GMP's queues (runnext, a P's local ring, the global queue: behind a spinner on the only P),
 *       with a due timer on that busy P, and after {@code getStackTrace()}, which makes the JDK
 *       submit an unparked thread a second time), sleeping or timed-parked (a timer of a P's heap),
 *       parked, waiting in {@code Object.wait} and blocked on a monitor; every wake-up comes
 *       promptly ({@link ConformanceStates});</li>
 *   <li>{@code jcmd Thread.dump_to_file}, JSON and text: the virtual threads are listed with
 *       their states, and a mounted one with its carrier ({@link ConformanceThreadDump});</li>
 *   <li>the JDK's JFR events {@code jdk.VirtualThreadStart}, {@code End} and {@code Pinned}
 *       ({@link ConformanceJfr});</li>
 *   <li>virtual threads started by a shutdown hook, and by them, run to completion however the
 *       JVM shuts down ({@link ConformanceShutdown}).</li>
 * </ol>
 * Each check runs both JVMs, holds both to the same expected values, and compares the
 * scheduler-independent part of their results with each other; under the agent it also checks
 * that the threads ran on GMP carriers ({@code gmp-M<n>}) and, where the scheduler's snapshot shows
 * it, that they waited where intended. Bounds in time are generous: CI machines are busy.
 */
class VirtualThreadConformanceIT {
    /** A wake-up (interrupt, unpark, notify, monitor release) of a thread waiting 60 s must come this soon. */
    private static final long WAKE_BOUND_MILLIS = 5_000;

    enum Scheduler {
        /** The reference: no agent, the JDK's ForkJoinPool (run first). */
        FJP(Pattern.compile("ForkJoinPool-\\d+-worker-\\d+")),
        GMP(Pattern.compile("gmp-M\\d+"));

        final Pattern carrier;

        Scheduler(Pattern carrier) {
            this.carrier = carrier;
        }

        Forked run(List<String> jvmArgs, Class<?> mainClass, String... args) {
            return this == GMP ? ForkedJvm.withAgent(null, jvmArgs, mainClass, args)
                    : ForkedJvm.withoutAgent(jvmArgs, mainClass, args);
        }
    }

    /** One forked run's {@code key=value} lines, and the failures found in them. */
    private static final class Run {
        final Scheduler scheduler;
        final Forked jvm;
        final Map<String, String> values = new LinkedHashMap<>();
        final List<String> failures = new ArrayList<>();
        /** Which variant of the check this run is, for failure messages. */
        String variant = "";

        Run(Scheduler scheduler, Forked jvm) {
            this.scheduler = scheduler;
            this.jvm = jvm;
            for (String line : jvm.stdout().split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    values.put(line.substring(0, eq), line.substring(eq + 1).trim());
                }
            }
        }

        String get(String key) {
            return values.get(key);
        }

        void expect(String key, Object expected) {
            String actual = values.get(key);
            if (!String.valueOf(expected).equals(actual)) {
                failures.add(key + ": expected " + expected + ", was " + actual);
            }
        }

        void check(boolean ok, String message) {
            if (!ok) {
                failures.add(message);
            }
        }

        void expectCarrier(String key) {
            String carrier = values.get(key);
            check(carrier != null && scheduler.carrier.matcher(carrier).matches(),
                    key + ": expected a carrier matching " + scheduler.carrier + ", was " + carrier);
        }

        long number(String key) {
            String value = values.get(key);
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException | NullPointerException e) {
                failures.add(key + ": expected a number, was " + value);
                return Long.MIN_VALUE;
            }
        }

        /** The values of the keys {@code portable} accepts: what must not depend on the scheduler. */
        Map<String, String> portable(Predicate<String> portable) {
            Map<String, String> kept = new TreeMap<>();
            values.forEach((k, v) -> {
                if (portable.test(k)) {
                    kept.put(k, v);
                }
            });
            return kept;
        }

        void assertOk() {
            if (!failures.isEmpty()) {
                fail(scheduler + variant + ": " + failures.size() + " check(s) failed:\n  " + String.join("\n  ", failures)
                        + "\n" + jvm);
            }
        }
    }

    private static List<Run> runBoth(List<String> jvmArgs, Class<?> mainClass, String... args) {
        List<Run> runs = new ArrayList<>();
        for (Scheduler scheduler : Scheduler.values()) {
            Run run = new Run(scheduler, scheduler.run(jvmArgs, mainClass, args));
            run.check(run.jvm.exitCode() == 0, "exit code " + run.jvm.exitCode());
            runs.add(run);
        }
        return runs;
    }

    private static void assertSamePortableResults(List<Run> runs, Predicate<String> portable) {
        Run reference = runs.get(0);
        for (Run run : runs.subList(1, runs.size())) {
            assertEquals(reference.portable(portable), run.portable(portable),
                    "scheduler-independent results differ between " + reference.scheduler + " and " + run.scheduler
                            + "\n" + reference.scheduler + ": " + reference.jvm + "\n" + run.scheduler + ": " + run.jvm);
        }
    }

    // ------------------------------------------------------------------ 1. states and interrupts

    @Test
    void stateAndInterruptOfVirtualThreadsQueuedSleepingParkedWaitingAndBlocked() {
        List<Run> runs = runBoth(List.of("-Djdk.virtualThreadScheduler.parallelism=1", "-Dgmp.preempt=false"),
                ConformanceStates.class);
        /** A thread waiting behind the spinner; {@code seesInterrupt}: it finds its interrupt status set when it runs. */
        record Waiter(String name, String state, boolean seesInterrupt) {
        }
        List<Waiter> waiters = List.of(new Waiter("q-runnext-unparked", "RUNNABLE", true),
                new Waiter("q-ring-started", "RUNNABLE", true), new Waiter("q-ring-unparked", "RUNNABLE", true),
                new Waiter("q-ring-control", "RUNNABLE", false), new Waiter("q-global-started", "RUNNABLE", true),
                new Waiter("q-global-unparked", "RUNNABLE", true), new Waiter("q-global-control", "RUNNABLE", false),
                // its sleep is over, its timeout not yet run (the carrier is busy); the interrupt ends the sleep
                new Waiter("q-sleep-due", "TIMED_WAITING", false));
        Map<String, String> blockedStates = Map.of("b-sleep", "TIMED_WAITING", "b-park", "WAITING",
                "b-park-interrupt", "WAITING", "b-parknanos", "TIMED_WAITING", "b-parknanos-interrupt", "TIMED_WAITING",
                "b-wait", "WAITING", "b-timed-wait-interrupt", "TIMED_WAITING", "b-monitor", "BLOCKED",
                "b-sleep-1s", "TIMED_WAITING");
        Map<String, String> blockedOutcomes = Map.of("b-sleep", "InterruptedException", "b-park", "unparked",
                "b-park-interrupt", "woke+interruptStatus", "b-parknanos", "unparked",
                "b-parknanos-interrupt", "woke+interruptStatus", "b-wait", "notified",
                "b-timed-wait-interrupt", "InterruptedException", "b-monitor", "entered");
        for (Run run : runs) {
            run.expect("done", true);
            run.check(run.jvm.stderr().isEmpty(), "nothing on stderr (an uncaught exception in a virtual thread prints there)");
            run.expect("queued.spinner.state", "RUNNABLE");
            run.expect("queued.spinner.timedOut", false);
            run.expectCarrier("queued.spinner.carrier");
            for (Waiter w : waiters) {
                String key = "queued." + w.name();
                run.expect(key + ".state", w.state());
                run.expect(key + ".stateAfterInterrupt", "RUNNABLE");
                run.expect(key + ".ranWhileSpinning", false);
                run.expect(key + ".interruptedWhenRun", w.seesInterrupt());
                run.expect(key + ".sleepThrew", w.seesInterrupt());
                run.expect(key + ".interruptStatusAfterSleep", false);
                run.expect(key + ".runs", 1);
                run.expectCarrier(key + ".carrier");
                String stack = String.valueOf(run.get(key + ".stack"));
                if (w.name().contains("started") || w.name().contains("control")) {
                    run.check(stack.isEmpty(), key + ": a thread not yet run has an empty stack, was " + stack);
                } else {
                    String frame = w.name().contains("sleep") ? "java.lang.Thread.sleep," : "java.util.concurrent.locks.LockSupport.park,";
                    run.check(stack.contains(frame), key + ": the stack has " + frame + " was " + stack);
                }
            }
            run.expect("queued.q-sleep-due.firstSleepThrew", true);
            blockedStates.forEach((name, state) -> {
                run.expect("blocked." + name + ".state", state);
                run.expectCarrier("blocked." + name + ".carrier");
            });
            blockedOutcomes.forEach((name, outcome) -> {
                run.expect("blocked." + name + ".outcome", outcome);
                long wake = run.number("blocked." + name + ".wakeMillis");
                run.check(wake <= WAKE_BOUND_MILLIS, name + " ran again " + wake + " ms after its wake-up (bound "
                        + WAKE_BOUND_MILLIS + " ms; it would otherwise have waited 60 s)");
            });
            Matcher slept = Pattern.compile("slept (\\d+) ms").matcher(String.valueOf(run.get("blocked.b-sleep-1s.outcome")));
            run.check(slept.matches(), "b-sleep-1s: expected 'slept N ms', was " + run.get("blocked.b-sleep-1s.outcome"));
            if (slept.matches()) {
                long millis = Long.parseLong(slept.group(1));
                run.check(millis >= 1_000 && millis <= 1_000 + WAKE_BOUND_MILLIS,
                        "a 1 s sleep took " + millis + " ms: neither early nor more than " + WAKE_BOUND_MILLIS + " ms late");
            }
            if (run.scheduler == Scheduler.GMP) {
                // The threads really waited where intended: the spinner's P holds one in runnext and
                // three in its ring, the global queue three, the P's heap the due sleeper's timer;
                // interrupted, the sleeper joins the global queue, the others stay where they were.
                for (String when : List.of("before", "after")) {
                    run.expect("queued.gmp." + when + ".procs", 1);
                    run.expect("queued.gmp." + when + ".runnext", true);
                    run.expect("queued.gmp." + when + ".local", 3);
                }
                run.expect("queued.gmp.before.global", 3);
                run.expect("queued.gmp.before.pendingTimers", 1);
                run.expect("queued.gmp.after.global", 4);
                // Reading their stacks submitted the four unparked threads a second time, from main.
                run.expect("queued.gmp.afterStacks.runnext", true);
                run.expect("queued.gmp.afterStacks.local", 3);
                run.expect("queued.gmp.afterStacks.global", 8);
                run.expect("queued.gmp.end.runnext", false);
                run.expect("queued.gmp.end.local", 0);
                run.expect("queued.gmp.end.global", 0);
                run.expect("queued.gmp.end.pendingTimers", 0);
                long timers = run.number("blocked.gmp.pendingTimers");
                run.check(timers >= 4, "sleep, two parkNanos and a timed wait are timers of a P's heap: pending "
                        + timers + ", expected at least 4");
                run.expect("blocked.gmp.pendingTimersAfter", 0);
            }
            run.assertOk();
        }
        assertSamePortableResults(runs, key -> (key.startsWith("queued.") || key.startsWith("blocked."))
                && !key.startsWith("queued.gmp.") && !key.startsWith("blocked.gmp.")
                && !key.endsWith(".carrier") && !key.endsWith(".wakeMillis") && !key.equals("blocked.b-sleep-1s.outcome"));
    }

    // ------------------------------------------------------------------ 2. thread dumps

    @Test
    void jcmdThreadDumpsListTheVirtualThreadsAndTheCarrierOfAMountedOne(@TempDir Path tmp) throws IOException {
        List<Run> runs = new ArrayList<>();
        List<Map<String, String>> summaries = new ArrayList<>();
        for (Scheduler scheduler : Scheduler.values()) {
            Path dir = Files.createDirectories(tmp.resolve(scheduler.name()));
            Run run = new Run(scheduler, scheduler.run(
                    List.of("-Djdk.virtualThreadScheduler.parallelism=2", "-Dgmp.preempt=false"),
                    ConformanceThreadDump.class, dir.toString()));
            run.check(run.jvm.exitCode() == 0, "exit code " + run.jvm.exitCode());
            run.expect("done", true);
            run.expect("dump.parked.state", "WAITING");
            run.expect("dump.sleeping.state", "TIMED_WAITING");
            run.expect("dump.running.state", "RUNNABLE");
            run.expect("dump.running.stillRunning", true);
            run.expectCarrier("dump.running.carrier");
            for (String key : List.of("dump.json.jcmd", "dump.text.jcmd")) {
                String reply = String.valueOf(run.get(key));
                run.check(reply.startsWith("0 ") && reply.contains("Created"), key + ": jcmd exit 0 and 'Created', was " + reply);
            }
            run.assertOk();
            Map<String, String> summary = new TreeMap<>();
            checkJsonDump(run, Files.readString(Path.of(run.get("dump.json.file"))), summary);
            checkTextDump(run, Files.readString(Path.of(run.get("dump.text.file"))), summary);
            run.assertOk();
            runs.add(run);
            summaries.add(summary);
        }
        assertEquals(summaries.get(0), summaries.get(1), "what the dumps show of the virtual threads differs between "
                + runs.get(0).scheduler + " and " + runs.get(1).scheduler);
    }

    private static void checkJsonDump(Run run, String text, Map<String, String> summary) {
        Map<?, ?> dump = (Map<?, ?>) ((Map<?, ?>) MiniJson.parse(text)).get("threadDump");
        Map<String, Map<?, ?>> threadsByName = new LinkedHashMap<>();
        Map<String, Map<?, ?>> threadsByTid = new LinkedHashMap<>();
        Map<String, String> containerOf = new LinkedHashMap<>();
        for (Object c : (List<?>) dump.get("threadContainers")) {
            Map<?, ?> container = (Map<?, ?>) c;
            for (Object t : (List<?>) container.get("threads")) {
                Map<?, ?> thread = (Map<?, ?>) t;
                threadsByName.put((String) thread.get("name"), thread);
                threadsByTid.put((String) thread.get("tid"), thread);
                // "java.util.concurrent.ThreadPerTaskExecutor@792ecf9d" -> "java.util.concurrent.ThreadPerTaskExecutor"
                containerOf.put((String) thread.get("name"), ((String) container.get("container")).replaceAll("@\\p{XDigit}+$", "")
                        + " (parent " + container.get("parent") + ")");
            }
        }
        Map<String, String> expectedStates = Map.of("dump-parked", "WAITING", "dump-sleeping", "TIMED_WAITING",
                "dump-running", "RUNNABLE", "dump-executor-0", "WAITING");
        Map<String, String> expectedFrames = Map.of("dump-parked", "java.util.concurrent.locks.LockSupport.park(",
                "dump-sleeping", "java.lang.Thread.sleep(", "dump-running", "example.app.ConformanceThreadDump.lambda$main$",
                "dump-executor-0", "java.util.concurrent.ThreadPerTaskExecutor$TaskRunner.run(");
        expectedStates.forEach((name, state) -> {
            Map<?, ?> thread = threadsByName.get(name);
            run.check(thread != null, "JSON dump: no thread named " + name);
            if (thread == null) {
                return;
            }
            summary.put("json." + name + ".state", String.valueOf(thread.get("state")));
            summary.put("json." + name + ".virtual", String.valueOf(thread.get("virtual")));
            summary.put("json." + name + ".mounted", String.valueOf(thread.containsKey("carrier")));
            summary.put("json." + name + ".container", containerOf.get(name));
            run.check(state.equals(thread.get("state")), "JSON dump: " + name + " state " + thread.get("state") + ", expected " + state);
            run.check(Boolean.TRUE.equals(thread.get("virtual")), "JSON dump: " + name + " is not \"virtual\": true");
            run.check(name.equals("dump-running") == thread.containsKey("carrier"),
                    "JSON dump: " + name + " has a \"carrier\" if and only if it is the mounted one: " + thread);
            List<?> stack = (List<?>) thread.get("stack");
            run.check(stack.stream().anyMatch(f -> String.valueOf(f).contains(expectedFrames.get(name))),
                    "JSON dump: " + name + "'s stack has no frame " + expectedFrames.get(name) + ": " + stack);
        });
        for (String name : List.of("dump-parked", "dump-sleeping", "dump-running")) {
            Map<?, ?> thread = threadsByName.get(name);
            if (thread != null) {
                run.check(String.valueOf(thread.get("tid")).equals(run.get("dump.tid." + name)),
                        "JSON dump: " + name + " has tid " + thread.get("tid") + ", Thread.threadId() was " + run.get("dump.tid." + name));
            }
        }
        run.check(containerOf.getOrDefault("dump-executor-0", "").startsWith("java.util.concurrent.ThreadPerTaskExecutor (parent <root>)"),
                "JSON dump: the executor's thread is in its ThreadPerTaskExecutor container, under the root: " + containerOf.get("dump-executor-0"));

        Map<?, ?> running = threadsByName.get("dump-running");
        if (running != null && running.get("carrier") != null) {
            Map<?, ?> carrier = threadsByTid.get(String.valueOf(running.get("carrier")));
            run.check(carrier != null, "JSON dump: the carrier of dump-running, tid " + running.get("carrier") + ", is not listed");
            if (carrier != null) {
                String name = String.valueOf(carrier.get("name"));
                run.check(run.scheduler.carrier.matcher(name).matches() && name.equals(run.get("dump.running.carrier")),
                        "JSON dump: dump-running's carrier is " + name + ", Thread.toString() said "
                                + run.get("dump.running.carrier") + ", expected " + run.scheduler.carrier);
                run.check(!carrier.containsKey("virtual"), "JSON dump: the carrier is a platform thread: " + carrier);
                checkCarrierStack(run, "JSON dump", ((List<?>) carrier.get("stack")).stream().map(String::valueOf).toList());
            }
        }
    }

    /** A carrier's own stack ends in the continuation it runs, below the scheduler's loop. */
    private static void checkCarrierStack(Run run, String where, List<String> frames) {
        run.check(frames.stream().anyMatch(f -> f.contains("jdk.internal.vm.Continuation.run(")),
                where + ": the carrier's stack runs a continuation: " + frames);
        String schedulerFrame = run.scheduler == Scheduler.GMP ? "io.loomgmp.dispatcher.Carrier.run("
                : "java.util.concurrent.ForkJoinWorkerThread.run(";
        run.check(frames.stream().anyMatch(f -> f.contains(schedulerFrame)),
                where + ": the carrier's stack has " + schedulerFrame + ": " + frames);
    }

    private static void checkTextDump(Run run, String text, Map<String, String> summary) {
        // #24 "dump-parked" virtual WAITING 2026-11-23T22:06:17.648735537Z
        Pattern header = Pattern.compile("^#(\\d+) \"(.*)\" (virtual )?([A-Z_]+) \\S+$", Pattern.MULTILINE);
        Map<String, String> headers = new LinkedHashMap<>();
        Map<String, List<String>> stacks = new LinkedHashMap<>();
        for (String block : text.split("\n\n")) {
            Matcher m = header.matcher(block);
            if (m.find()) {
                headers.put(m.group(2), "#" + m.group(1) + " " + (m.group(3) == null ? "" : m.group(3)) + m.group(4));
                stacks.put(m.group(2), block.lines().skip(1).map(String::strip).toList());
            }
        }
        Map<String, String> expected = Map.of("dump-parked", "virtual WAITING", "dump-sleeping", "virtual TIMED_WAITING",
                "dump-running", "virtual RUNNABLE", "dump-executor-0", "virtual WAITING");
        expected.forEach((name, state) -> {
            String line = headers.get(name);
            summary.put("text." + name, line == null ? null : line.replaceFirst("^#\\d+ ", ""));
            run.check(line != null && line.endsWith(" " + state), "text dump: " + name + " shows " + line + ", expected " + state);
            String tid = run.get("dump.tid." + name);
            if (line != null && tid != null) {
                run.check(line.startsWith("#" + tid + " "), "text dump: " + name + " shows " + line + ", its id is " + tid);
            }
        });
        String carrier = run.get("dump.running.carrier");
        String carrierLine = headers.get(carrier);
        run.check(carrierLine != null && carrierLine.endsWith(" RUNNABLE") && !carrierLine.contains("virtual"),
                "text dump: the carrier " + carrier + " is listed as a RUNNABLE platform thread: " + carrierLine);
        if (carrierLine != null) {
            checkCarrierStack(run, "text dump", stacks.get(carrier));
        }
    }

    // ------------------------------------------------------------------ 3. JFR

    @Test
    void jfrRecordsTheJdksVirtualThreadStartEndAndPinnedEvents(@TempDir Path tmp) {
        List<Run> runs = new ArrayList<>();
        for (Scheduler scheduler : Scheduler.values()) {
            Run run = new Run(scheduler, scheduler.run(List.of(), ConformanceJfr.class,
                    tmp.resolve(scheduler + ".jfr").toString()));
            run.check(run.jvm.exitCode() == 0, "exit code " + run.jvm.exitCode());
            runs.add(run);
        }
        List<String> names = List.of("jfr-plain-0", "jfr-plain-1", "jfr-plain-2", "jfr-sleeper-0", "jfr-sleeper-1",
                "jfr-sleeper-2", "jfr-parent", "jfr-child", "jfr-pinned");
        for (Run run : runs) {
            run.expect("done", true);
            for (String name : names) {
                run.expect("jfr.count.Start." + name, 1);
                run.expect("jfr.count.End." + name, 1);
                if (name.equals("jfr-pinned")) {
                    // Its sleep parks once, or again for the rest after a spurious early return
                    // (seen beside a CPU hog): an event per park.
                    run.check(run.number("jfr.count.Pinned." + name) >= 1, "jfr.count.Pinned." + name + " >= 1");
                } else {
                    run.expect("jfr.count.Pinned." + name, 0);
                }
            }
            run.expect("jfr.submitFailed", 0);
            run.expect("jfr.pinnedEvent.virtual", true);
            run.expect("jfr.pinnedEvent.blockingOperation", "LockSupport.park");
            run.expect("jfr.pinnedEvent.pinnedReason", "VM call to example.app.ConformanceJfr$SleepsInInitialiser.<clinit> on stack");
            run.expect("jfr.pinnedEvent.stackInInitialiser", true);
            long pinnedMillis = run.number("jfr.pinnedEvents.totalMillis");
            run.check(pinnedMillis >= ConformanceJfr.PINNED_SLEEP_MILLIS - 10,
                    "the Pinned events last the " + ConformanceJfr.PINNED_SLEEP_MILLIS + " ms sleep: " + pinnedMillis + " ms");
            run.expectCarrier("jfr.pinned.carrier");
            run.expectCarrier("jfr.child.carrier");
            run.expect("jfr.pinnedEvent.carrierThread", run.get("jfr.pinned.carrier"));
            run.assertOk();
        }
        assertSamePortableResults(runs, key -> key.startsWith("jfr.count.") && !key.equals("jfr.count.Pinned.jfr-pinned")
                || key.equals("jfr.submitFailed")
                || (key.startsWith("jfr.pinnedEvent.") && !key.equals("jfr.pinnedEvent.carrierThread")));
    }

    // ------------------------------------------------------------------ 4. shutdown

    @Test
    void virtualThreadsStartedDuringShutdownRunToCompletion() {
        List<String> threads = List.of("shutdown-plain", "shutdown-sleeper", "shutdown-parent", "shutdown-child",
                "shutdown-ping", "shutdown-pong");
        for (String mode : List.of("return", "exit", "exit-from-virtual")) {
            List<Run> runs = runBoth(List.of("-Djdk.virtualThreadScheduler.parallelism=1"), ConformanceShutdown.class, mode);
            for (Run run : runs) {
                run.variant = " (" + mode + ")";
                run.expect("shutdown.mode", mode);
                run.expect("shutdown.hook.started", true);
                run.expect("shutdown.hook.done", true);
                run.expect("shutdown.roundTrips", ConformanceShutdown.ROUND_TRIPS);
                run.expect("shutdown.shutdown-child.joined", true);
                run.check(run.get("shutdown.notHalted") == null, "System.exit from a virtual thread halted the JVM");
                run.check(run.jvm.stderr().isEmpty(), "nothing on stderr");
                for (String name : threads) {
                    run.expectCarrier("shutdown." + name + ".carrier");
                    if (!name.equals("shutdown-child")) {
                        run.expect("shutdown." + name + ".ended", true);
                    }
                }
                run.assertOk();
            }
            assertSamePortableResults(runs, key -> !key.endsWith(".carrier"));
        }
    }
}
