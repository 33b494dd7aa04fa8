package io.loomgmp.trace;

import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code loomgmp top PID} ({@code java -jar loom-gmp-trace.jar top PID}): a live console for a
 * JVM that runs loom-gmp, in the manner of {@code top}. It attaches ({@link Attachment}), reads the
 * scheduler's MXBean once per interval, and shows each reading with the rates since the previous
 * one ({@link Rates}) as a frame ({@link TopScreen}) on the terminal ({@link Terminal}); the key
 * {@code t} (or {@code --trace D}) streams the tracing events for a few seconds ({@link LiveTrace})
 * and adds the threads that ran and waited longest.
 *
 * <p><b>Modes.</b> Interactive (the default): a frame at once, then one per interval, until
 * {@code q} or Ctrl-C; keys are read between refreshes, so one acts at once. Non-interactive
 * ({@code --once}, {@code --frames N}): N plain frames, the first after one interval so that every
 * frame has rates; with {@code --trace} the last frame waits for the trace to end, so it shows
 * the result.
 *
 * <p><b>Ways out</b>, each leaving the terminal as it found it and the target without the
 * console's recording (the clean-up runs on every path, and from a shutdown hook on Ctrl-C):
 * {@code q} or the frames done (status 0, no message); Ctrl-C (status 130, as the JVM exits on
 * SIGINT); the JVM exited (status 0, one line);
 * cannot attach, no loom-gmp, the connection lost, the scheduler closed (status 1, one line);
 * bad arguments (status 2, one line and the usage).
 */
final class Top {
    static final String USAGE = """
            usage: loomgmp top PID [--once | --frames N] [--interval D] [--trace D]
                   (without a checkout: java -jar loom-gmp-trace.jar top PID ...)
              Attaches to the JVM PID, which runs loom-gmp's agent, and shows its scheduler every second:
              the schedtrace figures, each P with the task it runs and for how long, carriers by state,
              rates per second and the scheduling latency. No restart and no flag needed.
              Keys: q quits (so does Ctrl-C); t streams loom-gmp's tracing events for 5 s and lists the
              virtual threads that ran longest and those that waited longest.
              --once        print one frame (after one interval, so that it has rates) and exit
              --frames N    print N frames, one per interval, and exit
              --interval D  time between refreshes (default 1s, at least 100ms)
              --trace D     trace at once, for D (at most 60s); t then traces for D too
              D is 5s, 500ms, 1m, or a number of seconds.
              Exit status: 0 quit, done, or the JVM exited; 1 cannot attach, no loom-gmp, connection
              lost; 2 bad arguments; 130 Ctrl-C.""";
    private static final String PREFIX = "loomgmp top: ";
    /** How long a note (an unknown key) stays on the screen. */
    private static final long NOTE_NANOS = 5_000_000_000L;
    /** Names of virtual threads kept, the most recently seen. */
    private static final int MAX_NAMES = 10_000;
    /** How much longer than its duration the last frame waits for a trace. */
    private static final Duration TRACE_GRACE = Duration.ofSeconds(60);

    private final TopOptions options;
    private final Attachment attachment;
    private final Terminal terminal;
    /** The last trace, or null. Loop thread only, but the shutdown hook closes it: volatile. */
    private volatile LiveTrace trace;
    private SchedulerReading reading;
    private Rates rates;
    private String note;
    private long noteUntil;
    /** Names of the virtual threads the P rows showed running, by id, for the trace's lists. */
    private final Map<Long, String> names = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
            return size() > MAX_NAMES;
        }
    };

    private Top(TopOptions options, Attachment attachment, Terminal terminal) {
        this.options = options;
        this.attachment = attachment;
        this.terminal = terminal;
    }

    /** The whole command, with its streams given; returns the exit status. */
    static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        TopOptions options;
        try {
            options = TopOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println(PREFIX + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        if (options.help()) {
            out.println(USAGE);
            return 0;
        }
        Attachment attachment;
        try {
            attachment = Attachment.open(options.pid());
        } catch (TraceException e) {
            err.println(PREFIX + e.getMessage());
            return 1;
        }
        boolean interactive = options.interactive();
        Terminal terminal = Terminal.open(interactive && Terminal.isScreenCapable(), interactive, out, in);
        Top top = new Top(options, attachment, terminal);
        Thread onCtrlC = new Thread(top::cleanUp, "loomgmp-top-exit");
        Runtime.getRuntime().addShutdownHook(onCtrlC);
        String ending = null;
        int status;
        try {
            top.watch();
            status = 0;
        } catch (Attachment.Gone e) {
            ending = e.getMessage();
            status = 0;
        } catch (TraceException e) {
            ending = e.getMessage();
            status = 1;
        } catch (InterruptedException e) {
            ending = "interrupted";
            status = 1;
        } finally {
            // Before anything is printed, a bug's stack trace included: on the main screen.
            top.cleanUp();
            try {
                Runtime.getRuntime().removeShutdownHook(onCtrlC);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C came meanwhile: the hook runs the same clean-up.
            }
        }
        if (ending != null) {
            err.println(PREFIX + ending); // after the clean-up: on the main screen, where it stays
        }
        return status;
    }

    /** The loop: returns on q or after the frames; throws how it ended otherwise. */
    private void watch() throws Attachment.Gone, TraceException, InterruptedException {
        boolean interactive = options.interactive();
        long interval = options.interval().toNanos();
        reading = attachment.read();
        rememberNames(reading);
        if (options.traceNow() != null) {
            trace = LiveTrace.start(attachment.connection, options.traceNow(), reading.procs());
        }
        if (interactive) {
            draw();
        }
        long next = System.nanoTime() + interval;
        int printed = 0;
        while (true) {
            long wait = next - System.nanoTime();
            if (interactive) {
                Character key = terminal.nextKey(wait / 1_000_000);
                if (key != null) {
                    if (!pressed(key)) {
                        return;
                    }
                    draw(); // the key's effect now, with the figures of the last refresh
                    continue;
                }
            } else if (wait > 0) {
                Thread.sleep(Duration.ofNanos(wait));
            }
            boolean last = !interactive && printed + 1 == options.frames();
            LiveTrace running = trace;
            if (last && running != null) {
                running.awaitOver(options.traceFor().plus(TRACE_GRACE));
            }
            SchedulerReading previous = reading;
            reading = attachment.read();
            rememberNames(reading);
            rates = Rates.between(previous, reading);
            draw();
            printed++;
            if (!interactive && printed == options.frames()) {
                return;
            }
            long now = System.nanoTime();
            next += interval;
            if (next - now < 0) {
                next = now + interval; // a slow read or a wait for the trace: start the beat again
            }
        }
    }

    /** Acts on a key; false to quit. */
    private boolean pressed(char key) {
        switch (Character.toLowerCase(key)) {
            case 'q' -> {
                return false;
            }
            case 't' -> {
                LiveTrace running = trace;
                if (running != null && !running.isOver()) {
                    note("a trace is running: one at a time");
                } else {
                    if (running != null) {
                        running.close();
                    }
                    trace = LiveTrace.start(attachment.connection, options.traceFor(), reading.procs());
                }
            }
            case ' ', '\r', '\n', '\t' -> {
                // Enter and the like: nothing to do, nothing to say.
            }
            default -> note("unknown key '" + printable(key) + "': q quits, t traces");
        }
        return true;
    }

    /** Keeps the names of the virtual threads running in {@code r}: its rows say {@code VT <id> <name>}. */
    private void rememberNames(SchedulerReading r) {
        for (SchedulerReading.ProcessorRow p : r.processors()) {
            String running = p.running();
            int space = running == null || !running.startsWith("VT ") ? -1 : running.indexOf(' ', 3);
            if (space > 3) {
                try {
                    names.put(Long.parseLong(running.substring(3, space)), running.substring(space + 1));
                } catch (NumberFormatException notAnId) {
                    // Not the dispatcher's format: no name to learn.
                }
            }
        }
    }

    private void note(String text) {
        note = text;
        noteUntil = System.nanoTime() + NOTE_NANOS;
    }

    private void draw() {
        long now = System.nanoTime();
        if (note != null && now - noteUntil > 0) {
            note = null;
        }
        String keys = !options.interactive() ? null
                : "q quit  t trace " + TopScreen.interval(options.traceFor())
                + (terminal.keysAreRaw() ? "" : "  (type the letter, then Enter)");
        LiveTrace last = trace;
        int[] size = terminal.size();
        terminal.show(TopScreen.render(new TopScreen.View(attachment.pid, options.interval(), LocalTime.now(), reading,
                rates, last == null ? null : last.status(now), names, note, keys, size[1], size[0])));
    }

    /**
     * Every way out: closes the trace (and its recording in the target), gives the terminal back,
     * closes the JMX connection. Idempotent, never throws; run by the loop's thread or the
     * shutdown hook.
     */
    private void cleanUp() {
        LiveTrace last = trace;
        if (last != null) {
            last.close();
        }
        terminal.restore();
        attachment.close();
    }

    private static String printable(char key) {
        return key < 32 || key == 127 ? "^" + (char) (key ^ 64) : String.valueOf(key);
    }
}
