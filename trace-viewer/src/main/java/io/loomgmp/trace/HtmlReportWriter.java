package io.loomgmp.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Writes trace.html: one self-contained file (inline CSS and script, the data embedded as JSON,
 * nothing fetched) with the per-P timeline drawn on a canvas (zoom with the wheel, pan by
 * dragging, details on hover) and the summary as static HTML, readable even with scripts off.
 *
 * <p>The page script lives in {@code trace.html} beside this class; this writer fills its
 * placeholders: the title, the summary tables (with the scheduling-latency histograms) and the
 * data. The data is columnar (flat number arrays per lane and for the virtual threads, strings
 * interned in one table) to keep big recordings small; past {@link #MAX_SLICES} slices the page
 * shows the first ones and says so (trace.json has them all). The virtual-thread table is built by
 * the script from the data, so that it sorts every thread, not only the rows it shows.
 *
 * <p>For tests and tools the page publishes what it drew as {@code window.loomgmpTrace} and as
 * {@code data-*} attributes on {@code <body>} (lanes, slices drawn per lane, each lane's band in
 * page pixels, the selected virtual thread and its runs drawn, the thread table's sort, the
 * latency table's box); opened as {@code trace.html#selftest} it also drives its own hover, zoom
 * and pan handlers, the thread table's headers and a thread's link with synthetic events and
 * records the outcome in {@code data-selftest}.
 */
final class HtmlReportWriter {
    static final int MAX_SLICES = 1_000_000;
    private static final int SLICE_STRIDE = 8;
    /** Numbers per thread row in the data's {@code threads.rows}: these, then one per end kind. */
    private static final int THREAD_FIELDS = 8;

    private final Timeline timeline;
    private final Summary summary;
    private final TraceModel model;
    private final Map<String, Integer> stringIds = new HashMap<>();
    private final StringBuilder strings = new StringBuilder();
    int slicesLeftOut;

    HtmlReportWriter(Timeline timeline, Summary summary) {
        this.timeline = timeline;
        this.summary = summary;
        this.model = timeline.model;
    }

    void write(Writer out) throws IOException {
        int total = 0;
        for (Timeline.Lane lane : timeline.procSectionLanes()) {
            total += lane.slices.size();
        }
        slicesLeftOut = Math.max(0, total - MAX_SLICES); // the summary, written first, reports it
        Map<String, String> fills = Map.of("{{TITLE}}", escape("loom-gmp trace: " + model.source),
                "{{SUMMARY}}", summaryHtml(), "{{HISTOGRAM}}", histogramHtml(), "{{UTILISATION}}", utilisationHtml(),
                "{{LATENCY}}", latencyHtml());
        String page = template();
        int at = page.indexOf("{{DATA}}");
        // The data is streamed between the two halves: it can be hundreds of megabytes, and
        // nothing in it (a file name, say) may be taken for a placeholder.
        out.write(fill(page.substring(0, at), fills));
        writeData(out);
        out.write(fill(page.substring(at + "{{DATA}}".length()), fills));
        out.flush();
    }

    private static String fill(String part, Map<String, String> fills) {
        for (Map.Entry<String, String> e : fills.entrySet()) {
            part = part.replace(e.getKey(), e.getValue());
        }
        return part;
    }

    private static String template() {
        try (InputStream in = Objects.requireNonNull(HtmlReportWriter.class.getResourceAsStream("trace.html"),
                "trace.html is missing from the jar")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- data -------------------------------------------------------------------------------

    /**
     * The page's data as one JSON object. The string table comes last: it is filled while the
     * lanes are written.
     */
    private void writeData(Writer w) throws IOException {
        StringBuilder out = new StringBuilder(1 << 16);
        out.append("{\"title\":");
        Json.string(out, model.source).append(",\"start\":");
        Json.string(out, Instant.ofEpochSecond(0, timeline.origin).toString());
        out.append(",\"spanNs\":").append(timeline.span())
                .append(",\"sliceStride\":").append(SLICE_STRIDE)
                .append(",\"slicesLeftOut\":").append(slicesLeftOut)
                .append(",\"lanes\":[");
        List<Timeline.Lane> shown = timeline.procSectionLanes();
        Map<Timeline.Lane, Integer> laneIndex = new HashMap<>();
        int budget = MAX_SLICES;
        for (int i = 0; i < shown.size(); i++) {
            Timeline.Lane lane = shown.get(i);
            laneIndex.put(lane, i);
            if (i > 0) out.append(',');
            out.append("{\"name\":");
            Json.string(out, lane.name).append(",\"kind\":\"")
                    .append(lane.tid == Timeline.SYSMON_TID ? "sysmon" : lane.tid == Timeline.OTHER_TID ? "other" : "proc")
                    .append("\",\"s\":[");
            int written = 0;
            for (Timeline.Slice slice : lane.slices) {
                if (written >= budget) break;
                if (written > 0) out.append(',');
                slice(out, slice);
                written++;
                drain(out, w);
            }
            budget -= written;
            out.append("],\"m\":[");
            boolean firstMark = true;
            for (Timeline.Mark mark : lane.marks) {
                if (!firstMark) out.append(',');
                firstMark = false;
                mark(out, mark);
                drain(out, w);
            }
            out.append("]}");
        }
        out.append("],\"flows\":[");
        boolean firstFlow = true;
        for (Timeline.Flow flow : timeline.flows) {
            Integer from = laneIndex.get(flow.from());
            Integer to = laneIndex.get(flow.to());
            if (from == null || to == null) continue;
            if (!firstFlow) out.append(',');
            firstFlow = false;
            out.append(from).append(',').append(flow.fromTime() - timeline.origin).append(',')
                    .append(to).append(',').append(flow.toTime() - timeline.origin);
            drain(out, w);
        }
        out.append("],\"counters\":[");
        for (int c = 0; c < timeline.counters.size(); c++) {
            Timeline.Counter counter = timeline.counters.get(c);
            if (c > 0) out.append(',');
            out.append("{\"name\":");
            Json.string(out, counter.name()).append(",\"t\":[");
            for (int i = 0; i < counter.times().length; i++) {
                if (i > 0) out.append(',');
                out.append(counter.times()[i] - timeline.origin);
                drain(out, w);
            }
            out.append("],\"v\":[");
            for (int i = 0; i < counter.values().length; i++) {
                if (i > 0) out.append(',');
                out.append(counter.values()[i]);
                drain(out, w);
            }
            out.append("]}");
        }
        out.append("],");
        threads(out, w);
        out.append(",\"strings\":[").append(strings).append("]}");
        w.append(out);
    }

    /**
     * "threads": {"stride", "ends": [end kinds], "rows": [virtual thread, runs, running ns,
     * runnable ns, waits, longest wait ns, first seen, last run end, runs per end kind...]}, the
     * two times from the origin.
     */
    private void threads(StringBuilder out, Writer w) throws IOException {
        ThreadAnalysis analysis = summary.threads;
        List<String> ends = analysis.endKinds;
        out.append("\"threads\":{\"stride\":").append(THREAD_FIELDS + ends.size()).append(",\"ends\":[");
        for (int k = 0; k < ends.size(); k++) {
            if (k > 0) out.append(',');
            Json.string(out, ends.get(k));
        }
        out.append("],\"rows\":[");
        boolean first = true;
        for (ThreadAnalysis.Row r : analysis.rows) {
            if (!first) out.append(',');
            first = false;
            out.append(r.virtualThread).append(',').append(r.runs).append(',').append(r.runningNanos).append(',')
                    .append(r.runnableNanos).append(',').append(r.waits).append(',').append(r.longestWait).append(',')
                    .append(r.firstSeen - timeline.origin).append(',').append(r.lastRunEnd - timeline.origin);
            for (int k = 0; k < ends.size(); k++) {
                out.append(',').append(r.ended(k));
            }
            drain(out, w);
        }
        out.append("]}");
    }

    private static void drain(StringBuilder buffer, Writer w) throws IOException {
        if (buffer.length() >= 1 << 15) {
            w.append(buffer);
            buffer.setLength(0);
        }
    }

    /**
     * [start, duration, kind, virtual thread, a, b, c, full duration]: kind 0 = run (a source,
     * b end, c carrier), 1 = wake anchor (a placement, b -1, c waker); strings as table indices.
     */
    private void slice(StringBuilder out, Timeline.Slice slice) {
        out.append(slice.start() - timeline.origin).append(',').append(slice.duration()).append(',');
        if (slice.kind() == Timeline.SliceKind.RUN) {
            TraceModel.Run r = (TraceModel.Run) slice.event();
            out.append("0,").append(r.virtualThread()).append(',').append(id(r.source())).append(',')
                    .append(id(r.end())).append(',').append(id(model.threadName(r.carrier()))).append(',')
                    .append(r.duration());
        } else {
            TraceModel.Wake w = (TraceModel.Wake) slice.event();
            out.append("1,").append(w.virtualThread()).append(',').append(id(w.placement())).append(",-1,")
                    .append(id(model.threadName(w.waker()))).append(',').append(slice.duration());
        }
    }

    /** [time, kind, text]: kind 0 steal, 1 preempt requested, 2 preempt honoured, 3 hand-off, 4 wake. */
    private void mark(StringBuilder out, Timeline.Mark mark) {
        out.append(mark.time() - timeline.origin).append(',');
        switch (mark.kind()) {
            case STEAL -> out.append("0,").append(id(Describe.steal((TraceModel.Steal) mark.event())));
            case PREEMPT_REQUESTED, PREEMPT_HONOURED -> {
                TraceModel.Preempt p = (TraceModel.Preempt) mark.event();
                out.append(mark.kind() == Timeline.MarkKind.PREEMPT_REQUESTED ? "1," : "2,")
                        .append(id(Describe.preempt(p) + " · " + model.threadName(p.carrier()) + " · slice "
                                + Describe.duration(p.sliceNanos())));
            }
            case HANDOFF -> {
                TraceModel.Handoff h = (TraceModel.Handoff) mark.event();
                out.append("3,").append(id(Describe.handoff(model, h) + " · blocked for "
                        + Describe.duration(h.blockedNanos())));
            }
            case WAKE -> {
                TraceModel.Wake w = (TraceModel.Wake) mark.event();
                out.append("4,").append(id(Describe.wake(w) + " · by " + model.threadName(w.waker())));
            }
        }
    }

    private int id(String s) {
        Integer id = stringIds.get(s);
        if (id == null) {
            id = stringIds.size();
            stringIds.put(s, id);
            if (!strings.isEmpty()) strings.append(',');
            Json.string(strings, s);
        }
        return id;
    }

    // ---- summary ----------------------------------------------------------------------------

    private String summaryHtml() {
        StringBuilder h = new StringBuilder();
        h.append("<table class=\"figures\">");
        row(h, "recording", escape(model.source) + " · " + Instant.ofEpochSecond(0, timeline.origin) + " · "
                + Describe.duration(summary.span) + " · " + String.format(Locale.ROOT, "%,d", model.eventsRead)
                + " events, " + String.format(Locale.ROOT, "%,d", model.loomGmpEvents()) + " loom-gmp");
        row(h, "Ps", String.valueOf(summary.procs));
        row(h, "runs", count(summary.runs) + (summary.runs == 0 ? " (record with loomgmp-trace.jfc to see runs)"
                : " (" + count(summary.virtualThreads) + " virtual threads), " + Describe.duration(summary.runNanos)
                + " in all, longest " + Describe.duration(summary.longestRun)));
        ThreadAnalysis threads = summary.threads;
        if (!threads.rows.isEmpty()) {
            LatencyProfile.Percentiles all = threads.latency.overall;
            row(h, "scheduling latency", count(all.count()) + " waits (runnable → running): "
                    + escape(Describe.percentiles(all)) + (all.count() == 0 ? "" : ", the longest by "
                    + Describe.virtualThread(threads.longestWaitThread) + " on P" + threads.longestWaitProcessor));
        }
        if (summary.runs > 0) {
            row(h, "runs by source", breakdown(summary.bySource, summary.runs));
            row(h, "runs by end", breakdown(summary.byEnd, summary.runs));
        }
        row(h, "steals", count(summary.steals) + " (" + count(summary.stolenTasks) + " tasks moved)");
        row(h, "preemptions", count(summary.preemptRequests) + " requested by sysmon, "
                + count(summary.preemptsHonoured) + " honoured");
        row(h, "hand-offs", count(summary.handoffs));
        row(h, "wake-ups", count(summary.wakes) + " (" + count(summary.flows) + " linked to the run they caused)");
        row(h, "carriers", count(summary.parks) + " parks, " + count(summary.spins) + " spins ("
                + count(summary.spinsFoundWork) + " found work)");
        row(h, "schedtrace samples", count(summary.samples));
        h.append("</table>");
        if (slicesLeftOut > 0) {
            h.append("<p class=\"warn\">The timeline shows the first ").append(count(MAX_SLICES))
                    .append(" slices; ").append(count(slicesLeftOut))
                    .append(" more are left out of this page (trace.json has them all).</p>");
        }
        return h.toString();
    }

    private String histogramHtml() {
        if (summary.runs == 0) {
            return "<p>No runs recorded.</p>";
        }
        Histogram lengths = summary.runLengths;
        long max = lengths.largestCount();
        StringBuilder h = new StringBuilder("<table class=\"bars\" id=\"histogram\"><tr><th>run length</th><th>runs</th><th></th></tr>");
        for (int i = lengths.firstNonEmpty(); i <= lengths.lastNonEmpty(); i++) {
            long n = lengths.counts[i];
            h.append("<tr><td>").append(escape(lengths.label(i))).append("</td><td class=\"n\">")
                    .append(count(n)).append("</td><td class=\"bar\">").append(bar(n, max)).append("</td></tr>");
        }
        return h.append("</table>").toString();
    }

    /**
     * The scheduling-latency histograms: one row per bucket, a column of counts and bars for the
     * whole recording, then a narrower one per P; below them each column's percentiles. Counts and
     * nanoseconds are also in data-n and data-ns attributes, for tests and tools.
     */
    private String latencyHtml() {
        ThreadAnalysis threads = summary.threads;
        LatencyProfile latency = threads.latency;
        StringBuilder h = new StringBuilder("<p class=\"help\" id=\"latency-help\">From the moment a virtual thread"
                + " became runnable (its wake-up, or the end of a run that yielded or was preempted) to the start of"
                + " its next run, counted on the P that ran it. ");
        h.append(count(threads.runsWithoutWake)).append(" runs had no wake-up before them (a thread's first run when"
                + " it was woken before the recording, or a dropped Wake event): they count as runs and add no wait. ");
        h.append(count(threads.wakesWithoutRun)).append(" wake-ups had no run after them (still runnable at the end,"
                + " or the run was dropped).");
        if (latency.withoutP > 0) {
            h.append(' ').append(count(latency.withoutP)).append(" waits ended in a run recorded with no P: they are in"
                    + " the all-Ps column only.");
        }
        if (threads.otherTaskRuns > 0) {
            h.append(' ').append(count(threads.otherTaskRuns)).append(" runs of tasks that are not virtual threads are"
                    + " left out.");
        }
        h.append("</p>");
        Histogram all = latency.all;
        if (all.total == 0) {
            return h.append("<p id=\"latency-none\">No waits measured.</p>").toString();
        }
        int procs = latency.byP.size();
        h.append("<div class=\"scroll\"><table class=\"bars\" id=\"latency\"><tr><th>latency</th>"
                + "<th colspan=\"2\">all Ps</th>");
        for (int p = 0; p < procs; p++) {
            h.append("<th colspan=\"2\">Proc ").append(p).append("</th>");
        }
        h.append("</tr>");
        long allMax = all.largestCount();
        for (int i = all.firstNonEmpty(); i <= all.lastNonEmpty(); i++) {
            h.append("<tr data-bucket=\"").append(i).append("\"><td>").append(escape(all.label(i))).append("</td>");
            countAndBar(h, all.counts[i], allMax, "bar", -1);
            for (int p = 0; p < procs; p++) {
                Histogram onP = latency.byP.get(p);
                countAndBar(h, onP.counts[i], onP.largestCount(), "bar mini", p);
            }
            h.append("</tr>");
        }
        percentileRow(h, "waits", LatencyProfile.Percentiles::count, latency, false);
        percentileRow(h, "p50", LatencyProfile.Percentiles::p50, latency, true);
        percentileRow(h, "p90", LatencyProfile.Percentiles::p90, latency, true);
        percentileRow(h, "p99", LatencyProfile.Percentiles::p99, latency, true);
        percentileRow(h, "max", LatencyProfile.Percentiles::max, latency, true);
        return h.append("</table></div>").toString();
    }

    private static void countAndBar(StringBuilder h, long n, long max, String barClass, int p) {
        h.append("<td class=\"n\" data-n=\"").append(n).append('"');
        if (p >= 0) h.append(" data-p=\"").append(p).append('"');
        h.append('>').append(count(n)).append("</td><td class=\"").append(barClass).append("\">")
                .append(bar(n, max)).append("</td>");
    }

    private static void percentileRow(StringBuilder h, String name,
                                      ToLongFunction<LatencyProfile.Percentiles> figure,
                                      LatencyProfile latency, boolean nanos) {
        h.append("<tr class=\"percentile\" data-figure=\"").append(name).append("\"><th>").append(name).append("</th>");
        percentileCells(h, latency.overall, figure, nanos);
        for (LatencyProfile.Percentiles onP : latency.percentilesByP) {
            percentileCells(h, onP, figure, nanos);
        }
        h.append("</tr>");
    }

    private static void percentileCells(StringBuilder h, LatencyProfile.Percentiles p,
                                        ToLongFunction<LatencyProfile.Percentiles> figure,
                                        boolean nanos) {
        long v = figure.applyAsLong(p);
        String text = !nanos ? count(v) : p.count() == 0 ? "–" : escape(Describe.duration(v));
        h.append("<td class=\"n\" data-").append(nanos ? "ns" : "n").append("=\"").append(v).append("\">")
                .append(text).append("</td><td></td>");
    }

    /** A bar as wide as n is of max; none for 0, so that an empty bucket shows nothing. */
    private static String bar(long n, long max) {
        if (n == 0 || max == 0) return "";
        return "<div style=\"width:" + String.format(Locale.ROOT, "%.1f", 100.0 * n / max) + "%\"></div>";
    }

    private String utilisationHtml() {
        StringBuilder h = new StringBuilder("<table class=\"bars\" id=\"utilisation\"><tr><th>P</th><th>runs</th>"
                + "<th>busy</th><th>utilisation</th><th></th></tr>");
        for (int p = 0; p < summary.procs; p++) {
            double u = summary.utilisation(p);
            h.append("<tr><td>Proc ").append(p).append("</td><td class=\"n\">").append(count(summary.runsPerP[p]))
                    .append("</td><td class=\"n\">").append(escape(Describe.duration(summary.busyNanos[p])))
                    .append("</td><td class=\"n\">").append(String.format(Locale.ROOT, "%.1f %%", 100 * u))
                    .append("</td><td class=\"bar\"><div style=\"width:")
                    .append(String.format(Locale.ROOT, "%.1f", Math.min(100, 100 * u))).append("%\"></div></td></tr>");
        }
        return h.append("</table>").toString();
    }

    private static void row(StringBuilder h, String name, String valueHtml) {
        h.append("<tr><th>").append(escape(name)).append("</th><td>").append(valueHtml).append("</td></tr>");
    }

    private static String breakdown(Map<String, Integer> counts, int total) {
        StringBuilder b = new StringBuilder();
        counts.forEach((key, n) -> {
            if (n == 0) return;
            if (!b.isEmpty()) b.append(", ");
            b.append(escape(key)).append(' ').append(count(n))
                    .append(String.format(Locale.ROOT, " (%.0f %%)", 100.0 * n / total));
        });
        return b.toString();
    }

    private static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
