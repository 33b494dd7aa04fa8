package io.loomgmp.trace;

import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one frame of {@code loomgmp top} shows, as lines of text: a pure function of the figures,
 * so that tests check the screen without a terminal or a JVM to watch. ASCII only (a terminal in
 * the C locale shows it as well as any), every line cut to the terminal's width, and the P table
 * cut to its height:
 * <pre>
 * loomgmp top  pid 41234  scheduler gmp  up 3m12s  every 1s                      14:03:07
 * SCHED 192013ms: gomaxprocs=2 idleprocs=0 threads=3 spinningthreads=0 idlethreads=1 runqueue=0 [1 0]
 * Ps        2: 2 busy, 0 idle   queued: 0 global, 1 local   timers: 6 waiting
 * Carriers  3 of 256: 2 running, 0 spinning, 1 idle, 0 blocked
 * Rates/s   tasks 2,010  steals 3.0  global 12  preempts 200  hand-offs 0  parks 5.0
 * Latency   p50 12us  p99 3.1ms  max 9.8ms  mean 40us  (1,234 tasks sampled since start, 1 in 64)
 * Totals    tasks 12,345,678  steals 1,234  preempts 5,678  hand-offs 0  timers fired 9  failures 0
 *
 *   P  STATE        QUEUE  NEXT  TIMERS   TASKS/S       FOR  RUNNING
 *   0  running          1  yes        3     1,005     4.0ms  VT 41 cpu-0
 * </pre>
 * then the last trace's lists, and the keys.
 */
final class TopScreen {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);
    private static final String P_HEADER = "  P  STATE        QUEUE  NEXT  TIMERS   TASKS/S       FOR  RUNNING";
    private static final int NAME_WIDTH = 24;

    private TopScreen() {
    }

    /**
     * Everything one frame shows.
     *
     * @param clock  the wall-clock time of the frame
     * @param rates  since the previous reading, or null (the first frame)
     * @param trace  the last trace's status, or null when none was asked for
     * @param names  names of virtual threads by id, for the trace's lists (JFR events name only
     *               a thread that woke another): those the P rows showed running
     * @param note   one line for the user (an unknown key), or null
     * @param keys   the keys line, or null when the console takes no keys
     * @param width  columns to cut lines at; 0: no limit
     * @param height lines the frame may take; 0: no limit
     */
    record View(long pid, Duration interval, LocalTime clock, SchedulerReading reading, Rates rates,
                LiveTrace.Status trace, Map<Long, String> names, String note, String keys, int width, int height) {
    }

    static List<String> render(View v) {
        SchedulerReading r = v.reading();
        List<String> top = new ArrayList<>();
        String title = "loomgmp top  pid " + v.pid() + "  scheduler " + r.name() + "  up " + uptime(r.uptimeMillis())
                + "  every " + interval(v.interval()) + (r.closed() ? "  CLOSED" : "");
        String clock = CLOCK.format(v.clock());
        int gap = v.width() - title.length() - clock.length();
        top.add(title + (v.width() > 0 && gap >= 2 ? " ".repeat(gap) : "  ") + clock);
        top.add(r.schedtraceLine());
        int localQueued = r.processors().stream().mapToInt(p -> p.localQueueLength() + (p.runnext() ? 1 : 0)).sum();
        top.add(label("Ps") + r.procs() + ": " + (r.procs() - r.idleProcs()) + " busy, " + r.idleProcs() + " idle   queued: "
                + count(r.globalQueueLength()) + " global, " + count(localQueued) + " local   timers: "
                + count(r.pendingTimers()) + " waiting");
        top.add(label("Carriers") + r.carriers() + " of " + r.maxCarriers() + ": " + r.runningCarriers() + " running, "
                + r.spinningCarriers() + " spinning, " + r.idleCarriers() + " idle, " + r.blockedCarriers() + " blocked");
        top.add(label("Rates/s") + rates(v.rates()));
        top.add(label("Latency") + latency(r.latency()));
        top.add(label("Totals") + "tasks " + count(r.tasksRun()) + "  steals " + count(r.steals()) + "  preempts "
                + count(r.preemptRequests()) + "  hand-offs " + count(r.handoffs()) + "  timers fired "
                + count(r.timersFired()) + "  failures " + count(r.failures()));
        top.add("");

        List<String> bottom = new ArrayList<>();
        if (v.trace() != null) {
            bottom.add("");
            bottom.addAll(trace(v.trace(), v.names()));
        }
        if (v.keys() != null || v.note() != null) {
            bottom.add("");
            bottom.add(v.keys() == null ? v.note() : v.note() == null ? v.keys() : v.keys() + "   " + v.note());
        }

        List<String> rows = new ArrayList<>();
        for (SchedulerReading.ProcessorRow p : r.processors()) {
            rows.add(processor(p, v.rates()));
        }
        int room = v.height() <= 0 ? Integer.MAX_VALUE : v.height() - top.size() - bottom.size() - 1;
        if (rows.size() > room) {
            // The P table gives way first: one line says how many rows it left out.
            int shown = Math.max(0, room - 1);
            int left = rows.size() - shown;
            rows = new ArrayList<>(rows.subList(0, shown));
            rows.add("  ... " + left + " more P" + (left == 1 ? "" : "s") + " (a taller terminal shows "
                    + (left == 1 ? "it" : "them") + ")");
        }

        List<String> lines = new ArrayList<>(top);
        lines.add(P_HEADER);
        lines.addAll(rows);
        lines.addAll(bottom);
        if (v.height() > 0 && lines.size() > v.height()) {
            lines = new ArrayList<>(lines.subList(0, v.height())); // a terminal too short for even that
        }
        if (v.width() > 0) {
            lines.replaceAll(line -> line.length() > v.width() ? line.substring(0, v.width()) : line);
        }
        return lines;
    }

    private static String processor(SchedulerReading.ProcessorRow p, Rates rates) {
        String taskRate = rates == null ? "-" : rate(rates.tasksByP()[p.id()]);
        String runningFor = p.running() == null ? "" : p.runningNanos() > 0 ? duration(p.runningNanos())
                : p.runningNanos() == 0 ? "new" : "?";
        return String.format(Locale.ROOT, "%3d  %-11s %6s  %-4s %7s %9s %9s  %s", p.id(), p.state(),
                count(p.localQueueLength()), p.runnext() ? "yes" : "-", count(p.pendingTimers()), taskRate, runningFor,
                p.running() == null ? "" : p.running());
    }

    private static String rates(Rates rates) {
        if (rates == null) {
            return "(from the next refresh on)";
        }
        return "tasks " + rate(rates.tasks()) + "  steals " + rate(rates.steals()) + "  global " + rate(rates.global())
                + "  preempts " + rate(rates.preempts()) + "  hand-offs " + rate(rates.handoffs()) + "  parks "
                + rate(rates.parks());
    }

    private static String latency(SchedulerReading.Latency l) {
        if (l == null) {
            return "n/a (this scheduler's MXBean has no latency figures)";
        }
        if (l.sampleEvery() == 0) {
            return "not sampled (sampling is off in this scheduler)";
        }
        String sampling = l.sampleEvery() == 1 ? "every task timed" : "about 1 task in " + l.sampleEvery() + " timed";
        if (l.samples() == 0) {
            return "no task sampled yet (" + sampling + ")";
        }
        return "p50 " + duration(l.p50Nanos()) + "  p99 " + duration(l.p99Nanos()) + "  max " + duration(l.maxNanos())
                + "  mean " + duration(Math.round(l.meanNanos())) + "  (" + count(l.samples())
                + " since start, " + sampling + ")";
    }

    private static List<String> trace(LiveTrace.Status status, Map<Long, String> names) {
        List<String> lines = new ArrayList<>();
        switch (status) {
            case LiveTrace.Running running -> lines.add(label("Trace") + "streaming loom-gmp's tracing events for "
                    + interval(running.duration()) + ": " + seconds(running.leftNanos()) + " left");
            case LiveTrace.Failed failed -> lines.add(label("Trace") + failed.why());
            case LiveTrace.Done done -> {
                LiveTrace.Result t = done.result();
                lines.add(label("Trace") + duration(t.nanos()) + " ended " + CLOCK.format(done.endedAt()) + ": "
                        + count(t.runs()) + " runs of " + count(t.threads()) + " virtual thread"
                        + (t.threads() == 1 ? "" : "s")
                        + (t.otherTaskRuns() > 0 ? ", " + count(t.otherTaskRuns()) + " runs of other tasks" : "")
                        + (t.eventsLeftOut() > 0 ? " (" + count(t.eventsLeftOut()) + " events past the first "
                        + count(LiveTrace.MAX_EVENTS) + " left out)" : ""));
                if (t.threads() == 0) {
                    lines.add("  no virtual thread ran on the scheduler while it traced");
                    break;
                }
                lines.add(String.format(Locale.ROOT, "  %-" + NAME_WIDTH + "s %9s %8s", "RAN LONGEST", "RUNNING", "RUNS"));
                for (LiveTrace.Row row : t.ranLongest()) {
                    lines.add(String.format(Locale.ROOT, "  %-" + NAME_WIDTH + "s %9s %8s", thread(row, names),
                            duration(row.runningNanos()), count(row.runs())));
                }
                lines.add(String.format(Locale.ROOT, "  %-" + NAME_WIDTH + "s %9s %9s %8s", "WAITED LONGEST", "LONGEST",
                        "WAITING", "WAITS"));
                if (t.waitedLongest().isEmpty()) {
                    lines.add("  (no run followed a wake-up seen in the trace)");
                }
                for (LiveTrace.Row row : t.waitedLongest()) {
                    lines.add(String.format(Locale.ROOT, "  %-" + NAME_WIDTH + "s %9s %9s %8s", thread(row, names),
                            duration(row.longestWaitNanos()), duration(row.waitingNanos()), count(row.waits())));
                }
            }
        }
        return lines;
    }

    /** "VT 41 cpu-0", cut to the name column. */
    private static String thread(LiveTrace.Row row, Map<Long, String> names) {
        String name = row.name() != null ? row.name() : names.get(row.virtualThread());
        String text = "VT " + row.virtualThread() + (name == null || name.isEmpty() ? "" : " " + name);
        return text.length() > NAME_WIDTH ? text.substring(0, NAME_WIDTH) : text;
    }

    private static String label(String label) {
        return String.format(Locale.ROOT, "%-10s", label);
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** A rate per second: whole above 10, one decimal below, "0" for none. */
    static String rate(double perSecond) {
        if (perSecond == 0) {
            return "0";
        }
        return perSecond >= 10 ? String.format(Locale.ROOT, "%,.0f", perSecond)
                : String.format(Locale.ROOT, "%.1f", perSecond);
    }

    /** A duration in two or three figures: 850ns, 4.2us, 37us, 3.1ms, 12ms, 2.50s, 12.3s, 3m05s, 2h10m. */
    static String duration(long nanos) {
        if (nanos < 1_000) {
            return nanos + "ns";
        }
        if (nanos < 10_000) {
            return String.format(Locale.ROOT, "%.1fus", nanos / 1e3);
        }
        if (nanos < 1_000_000) {
            return Math.round(nanos / 1e3) + "us";
        }
        if (nanos < 10_000_000) {
            return String.format(Locale.ROOT, "%.1fms", nanos / 1e6);
        }
        if (nanos < 1_000_000_000) {
            return Math.round(nanos / 1e6) + "ms";
        }
        if (nanos < 10_000_000_000L) {
            return String.format(Locale.ROOT, "%.2fs", nanos / 1e9);
        }
        long seconds = nanos / 1_000_000_000L;
        if (seconds < 60) {
            return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
        }
        if (seconds < 3_600) {
            return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", seconds / 3_600, seconds % 3_600 / 60);
    }

    /** The target's uptime: 42s, 3m12s, 5h07m, 2d03h. */
    static String uptime(long millis) {
        long s = millis / 1_000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3_600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format(Locale.ROOT, "%dh%02dm", s / 3_600, s % 3_600 / 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, s % 86_400 / 3_600);
    }

    /** A setting's duration as the user writes it: 1s, 500ms. */
    static String interval(Duration d) {
        long millis = d.toMillis();
        return millis % 1_000 == 0 ? millis / 1_000 + "s" : millis + "ms";
    }

    /** Whole seconds left, rounded up: a trace with 0.2 s to go says 1s. */
    private static String seconds(long nanos) {
        return (nanos + 999_999_999L) / 1_000_000_000L + "s";
    }
}
