package io.loomgmp.trace;

import io.loomgmp.jfr.Settings;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@code java -jar loom-gmp-trace.jar RECORDING.jfr [-o OUTDIR]} (what {@code ./loomgmp trace}
 * runs): converts a JFR recording's {@code loomgmp.*} events into {@code trace.json} (Chrome Trace
 * Event format, for Perfetto and {@code chrome://tracing}) and {@code trace.html} (a self-contained
 * viewer), written to OUTDIR, by default the recording's own directory.
 * {@code java -jar loom-gmp-trace.jar --print-jfc always|trace} prints a settings file.
 * {@code java -jar loom-gmp-trace.jar top PID ...} (what {@code ./loomgmp top} runs) is the live
 * console, {@link Top}, with its own options and exit statuses.
 *
 * <p>Exit status: 0 done; 1 the input cannot be converted (missing, not a JFR recording,
 * damaged, no loom-gmp events), with one line on standard error saying which; 2 bad arguments.
 * Progress goes to standard error; the two paths written go to standard output.
 */
public final class Main {
    static final String USAGE = """
            usage: java -jar loom-gmp-trace.jar RECORDING.jfr [-o OUTDIR]
                     writes OUTDIR/trace.json (open in ui.perfetto.dev or chrome://tracing) and
                     OUTDIR/trace.html (open in a browser); OUTDIR defaults to the recording's directory
                   java -jar loom-gmp-trace.jar top PID [--once | --frames N] [--interval D] [--trace D]
                     a live console, like top, for the JVM PID running loom-gmp: its scheduler every
                     second; q quits, t traces for 5 s (java -jar loom-gmp-trace.jar top --help says more)
                   java -jar loom-gmp-trace.jar --print-jfc always|trace
                     prints the always-on or the tracing JFR settings file""";
    private static final String PREFIX = "loomgmp trace: ";
    /** Past this many Ps the per-P latencies are left to trace.html: one line would not read. */
    private static final int MAX_PS_ON_ONE_LINE = 16;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** The whole command, with its streams given, so that tests run it in-process. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length > 0 && args[0].equals("top")) {
            return Top.run(Arrays.copyOfRange(args, 1, args.length), System.in, out, err);
        }
        if (args.length == 2 && args[0].equals("--print-jfc")) {
            return printJfc(args[1], out, err);
        }
        Path recording = null;
        Path outDir = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if ((a.equals("-o") || a.equals("--out")) && i + 1 < args.length) {
                outDir = Path.of(args[++i]);
            } else if (a.equals("-h") || a.equals("--help")) {
                out.println(USAGE);
                return 0;
            } else if (a.startsWith("-") || recording != null) {
                err.println(PREFIX + "unexpected argument '" + a + "'");
                err.println(USAGE);
                return 2;
            } else {
                recording = Path.of(a);
            }
        }
        if (recording == null) {
            err.println(USAGE);
            return 2;
        }
        try {
            convert(recording, outDir != null ? outDir : directoryOf(recording), out, err);
            return 0;
        } catch (TraceException e) {
            err.println(PREFIX + e.getMessage());
            return 1;
        } catch (OutOfMemoryError e) {
            // The model holds every loom-gmp event (about 300 bytes of heap per run, laid out).
            err.println(PREFIX + recording + " is too large for " + Runtime.getRuntime().maxMemory() / (1 << 20)
                    + " MB of heap: run java -Xmx<more> -jar loom-gmp-trace.jar " + recording);
            return 1;
        }
    }

    static void convert(Path recording, Path outDir, PrintStream out, PrintStream err) throws TraceException {
        long started = System.nanoTime();
        long progressEvery = Long.getLong("loomgmp.trace.progressEvery", 1_000_000);
        TraceModel model = new RecordingReader(progressEvery, err).read(recording);
        boolean large = model.eventsRead >= progressEvery; // worth a line per phase
        Timeline timeline = Timeline.of(model);
        Summary summary = Summary.of(timeline);
        if (large) {
            err.printf("loomgmp trace: laid out %,d runs on %d Ps in %.1f s; writing trace.json and trace.html%n",
                    summary.runs, summary.procs, (System.nanoTime() - started) / 1e9);
        }
        Path json = outDir.resolve("trace.json");
        Path html = outDir.resolve("trace.html");
        long jsonEvents;
        int leftOut;
        try {
            Files.createDirectories(outDir);
            try (Writer w = Files.newBufferedWriter(json, StandardCharsets.UTF_8)) {
                ChromeTraceWriter writer = new ChromeTraceWriter(timeline, w, progressEvery, err);
                writer.write();
                jsonEvents = writer.eventsWritten;
            }
            try (Writer w = Files.newBufferedWriter(html, StandardCharsets.UTF_8)) {
                HtmlReportWriter writer = new HtmlReportWriter(timeline, summary);
                writer.write(w);
                leftOut = writer.slicesLeftOut;
            }
        } catch (IOException e) {
            throw new TraceException("cannot write to " + outDir + ": " + e, e);
        }
        if (leftOut > 0) {
            err.printf("loomgmp trace: trace.html shows the first %,d slices (%,d left out; trace.json has them all)%n",
                    HtmlReportWriter.MAX_SLICES, leftOut);
        }
        err.printf("loomgmp trace: %,d events (%,d loom-gmp: %,d runs on %d Ps, %,d steals, %,d preemptions, "
                        + "%,d hand-offs) -> %,d trace events in %.1f s%n", model.eventsRead, model.loomGmpEvents(),
                summary.runs, summary.procs, summary.steals, summary.preemptRequests + summary.preemptsHonoured,
                summary.handoffs, jsonEvents, (System.nanoTime() - started) / 1e9);
        printLatency(summary.threads, err);
        out.println(json);
        out.println(html);
    }

    /** The scheduling-latency lines of the summary on standard error: the whole recording, then per P. */
    static void printLatency(ThreadAnalysis threads, PrintStream err) {
        LatencyProfile latency = threads.latency;
        LatencyProfile.Percentiles all = latency.overall;
        StringBuilder line = new StringBuilder(PREFIX).append("scheduling latency (runnable → running) of ")
                .append(String.format(Locale.ROOT, "%,d", all.count())).append(all.count() == 1 ? " wait: " : " waits: ")
                .append(Describe.percentiles(all));
        if (all.count() > 0) {
            line.append(" (").append(Describe.virtualThread(threads.longestWaitThread)).append(" on P")
                    .append(threads.longestWaitProcessor).append(')');
        }
        line.append("; ").append(String.format(Locale.ROOT, "%,d", threads.runsWithoutWake))
                .append(" runs with no wake-up before them add no wait");
        err.println(line);
        int procs = latency.byP.size();
        if (procs == 0 || all.count() == 0) {
            return;
        }
        StringBuilder perP = new StringBuilder(PREFIX).append("scheduling latency per P: ");
        if (procs > MAX_PS_ON_ONE_LINE) {
            perP.append(procs).append(" Ps, in trace.html");
        } else {
            for (int p = 0; p < procs; p++) {
                LatencyProfile.Percentiles onP = latency.percentilesByP.get(p);
                if (p > 0) perP.append(" · ");
                perP.append('P').append(p).append(' ').append(Describe.percentiles(onP));
            }
        }
        err.println(perP);
    }

    private static Path directoryOf(Path recording) {
        Path parent = recording.toAbsolutePath().getParent();
        return parent != null ? parent : Path.of(".");
    }

    private static int printJfc(String which, PrintStream out, PrintStream err) {
        switch (which) {
            case "always" -> out.print(Settings.text(Settings.ALWAYS_ON));
            case "trace" -> out.print(Settings.text(Settings.TRACE));
            default -> {
                err.println(PREFIX + "--print-jfc takes 'always' or 'trace', not '" + which + "'");
                return 2;
            }
        }
        out.flush();
        return 0;
    }
}
