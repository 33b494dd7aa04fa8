package io.loomgmp.benchmarks.saturation;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The saturation run's report: one Markdown table per shape, a row per server, level and request
 * class with GMP and ForkJoinPool side by side and their ratios, and a CSV with a row per cell and
 * class (every figure, unrounded). The Markdown is written twice: as a file of its own, and as the
 * section of docs/performance.md that {@code --publish} rewrites.
 */
final class SaturationReport {
    static final String BEGIN = "<!-- saturation:begin -->";
    static final String END = "<!-- saturation:end -->";

    static final String HOW_TO_READ = """
            Each cell is a server JVM of its own, warmed up with the cell's load (discarded), then \
            measured over its window; GMP ran with `-javaagent:loom-gmp-agent.jar`, FJP without. \
            req/s: answers per second of the window (in brackets, how many answers came in it: the \
            hogs' count says whether they finish at all under the load; for the open loop, the answers to \
            the requests due in the window, over the time until the last of them came). CPU/req: the server \
            process's CPU time over the window (all its threads), divided by the answers of every \
            class of the cell, µs; in brackets, the cores it kept busy. Work, cores: the CPU work that \
            each class's requests did in the window (the loop's steps, counted every millisecond of work \
            as they are done, whether or not the request ends in the window, at the run's calibration), \
            over the window: how much of the cores the class got; in brackets, where the cell has more \
            than one class, its share of the work of all of them; on the "all classes" row, the work of \
            every class, to set beside the cores the server used. Latency, ms: p50 / p99 / \
            p99.9 / max of the answers that came (wrk's figures for the closed loop, which include wrk's \
            coordinated-omission correction; for the open loop, from each request's intended send \
            time); "none" when no answer came. to/err: timeouts (no answer within 30 s) / errors \
            (connect, read, write, HTTP status). GMP/FJP: the ratio of the two; above 1 is better for \
            GMP in req/s, below 1 better in CPU/req and p99. wrk, the open-loop client and the \
            server share the machine's cores.""";

    private SaturationReport() {
    }

    /** How a run was measured: the report's header. */
    record RunInfo(String machine, String profile, String commit, String agent, String wrk, String date,
                   String loadAverages, String command, String took, double stepsPerMicro) {
        String describe() {
            return "Measured on " + machine + "; " + date + ", " + profile + "; commit " + commit + "; agent " + agent
                    + "; " + wrk + "; CPU loop " + String.format(Locale.ROOT, "%.1f", stepsPerMicro)
                    + " xorshift steps per µs; load average " + loadAverages + "; took " + took + ".";
        }
    }

    /** The whole report file. */
    static String markdown(List<CellResult> results, RunInfo info, String csvName) {
        return "# Saturation: GMP against ForkJoinPool past capacity\n\n"
                + info.describe() + "\n\nCommand: `" + info.command() + "`; every cell: [" + csvName + "](" + csvName + ").\n\n"
                + HOW_TO_READ + "\n\n"
                + tables(results, "##");
    }

    /** The section of docs/performance.md between {@link #BEGIN} and {@link #END}. */
    static String section(List<CellResult> results, RunInfo info, String reportLink, String csvLink) {
        return info.describe() + " Command: `" + info.command() + "`; the report: [" + reportLink + "](" + reportLink
                + "), every cell: [" + csvLink + "](" + csvLink + ").\n\n"
                + tables(results, "####");
    }

    /** A table per shape in the order the shapes ran, under a heading of {@code level}. */
    static String tables(List<CellResult> results, String level) {
        Map<Shape, Map<String, Pair>> byShape = new LinkedHashMap<>();
        for (CellResult result : results) {
            if (result.cell().capacityProbe()) {
                continue;
            }
            Cell cell = result.cell();
            Pair pair = byShape.computeIfAbsent(cell.shape(), s -> new LinkedHashMap<>())
                    .computeIfAbsent(cell.server() + "|" + cell.level(), k -> new Pair());
            if (cell.scheduler().equals("gmp")) {
                pair.gmp = result;
            } else {
                pair.fjp = result;
            }
        }
        StringBuilder out = new StringBuilder();
        byShape.forEach((shape, pairs) -> {
            out.append(level).append(' ').append(shape.label).append(": ").append(shape.title).append("\n\n");
            out.append("| server | load | class | GMP req/s | FJP req/s | GMP/FJP | GMP CPU/req | FJP CPU/req | GMP/FJP"
                    + " | GMP work, cores | FJP work, cores | GMP latency, ms | FJP latency, ms | p99 GMP/FJP | GMP to/err | FJP to/err |\n");
            out.append("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
            pairs.values().forEach(pair -> rows(pair, out));
            out.append('\n');
            pairs.values().stream().flatMap(pair -> Stream.of(pair.gmp, pair.fjp))
                    .filter(r -> r != null && r.drainMillis() < 0)
                    .forEach(r -> out.append("Not drained: ").append(r.cell().server()).append(' ').append(r.cell().level())
                            .append(' ').append(r.cell().scheduler().equals("gmp") ? "GMP" : "FJP")
                            .append(": requests the warm-up left were still running when the window began (")
                            .append(CellRunner.DRAIN_LIMIT.toSeconds()).append(" s after it).\n\n"));
        });
        return out.toString();
    }

    /** GMP's and FJP's run of the same cell; either may be missing from a run that stopped. */
    private static final class Pair {
        CellResult gmp;
        CellResult fjp;

        CellResult any() {
            return gmp != null ? gmp : fjp;
        }
    }

    private static void rows(Pair pair, StringBuilder out) {
        Cell cell = pair.any().cell();
        boolean single = cell.classes().size() == 1;
        for (int i = 0; i < cell.classes().size(); i++) {
            Optional<LoadResult> gmp = classResult(pair.gmp, i);
            Optional<LoadResult> fjp = classResult(pair.fjp, i);
            out.append("| ").append(cell.server())
                    .append(" | ").append(load(pair.any(), i))
                    .append(" | `").append(cell.classes().get(i).target()).append('`')
                    .append(" | ").append(gmp.map(SaturationReport::rate).orElse("—"))
                    .append(" | ").append(fjp.map(SaturationReport::rate).orElse("—"))
                    .append(" | ").append(ratio(gmp.map(LoadResult::requestsPerSecond), fjp.map(LoadResult::requestsPerSecond)))
                    .append(" | ").append(single ? cpu(pair.gmp) : "(below)")
                    .append(" | ").append(single ? cpu(pair.fjp) : "(below)")
                    .append(" | ").append(single ? ratio(cpuPerRequest(pair.gmp), cpuPerRequest(pair.fjp)) : "")
                    .append(" | ").append(work(pair.gmp, i))
                    .append(" | ").append(work(pair.fjp, i))
                    .append(" | ").append(gmp.map(SaturationReport::latencies).orElse("—"))
                    .append(" | ").append(fjp.map(SaturationReport::latencies).orElse("—"))
                    .append(" | ").append(ratio(gmp.filter(r -> r.requests() > 0).map(r -> (double) r.p99Micros()),
                            fjp.filter(r -> r.requests() > 0).map(r -> (double) r.p99Micros())))
                    .append(" | ").append(gmp.map(SaturationReport::failures).orElse("—"))
                    .append(" | ").append(fjp.map(SaturationReport::failures).orElse("—"))
                    .append(" |\n");
        }
        if (!single) {
            out.append("| ").append(cell.server()).append(" | ").append(cell.level()).append(" | all classes")
                    .append(" | ").append(pair.gmp == null ? "—" : number(pair.gmp.requestsPerSecond()))
                    .append(" | ").append(pair.fjp == null ? "—" : number(pair.fjp.requestsPerSecond()))
                    .append(" | ").append(ratio(Optional.ofNullable(pair.gmp).map(CellResult::requestsPerSecond),
                            Optional.ofNullable(pair.fjp).map(CellResult::requestsPerSecond)))
                    .append(" | ").append(cpu(pair.gmp))
                    .append(" | ").append(cpu(pair.fjp))
                    .append(" | ").append(ratio(cpuPerRequest(pair.gmp), cpuPerRequest(pair.fjp)))
                    .append(" | ").append(pair.gmp == null ? "—" : number(pair.gmp.workCores()))
                    .append(" | ").append(pair.fjp == null ? "—" : number(pair.fjp.workCores()))
                    .append(" | | | | | |\n");
        }
    }

    private static Optional<LoadResult> classResult(CellResult result, int i) {
        return result == null ? Optional.empty() : Optional.of(result.classes().get(i));
    }

    private static Optional<Double> cpuPerRequest(CellResult result) {
        return result == null ? Optional.empty() : Optional.of(result.cpuPerRequestMicros()).filter(Double::isFinite);
    }

    /** The load column: connections, or for the open loop the rate and the connections. */
    private static String load(CellResult result, int classIndex) {
        Cell cell = result.cell();
        if (cell.openLoop()) {
            return String.format(Locale.ROOT, "%d %% = %s/s, %d conns", Math.round(cell.fraction() * 100),
                    number(result.targetRate()), cell.classes().get(0).connections());
        }
        return cell.classes().get(classIndex).connections() + " conns";
    }

    /** "1,612 (16,120)": answers per second, and in brackets how many came. */
    static String rate(LoadResult result) {
        return number(result.requestsPerSecond()) + " (" + String.format(Locale.ROOT, "%,d", result.requests()) + ")";
    }

    /** "1,052 (1.71)": CPU µs per answer and in brackets the cores used; "—" without answers. */
    static String cpu(CellResult result) {
        if (result == null) {
            return "—";
        }
        double perRequest = result.cpuPerRequestMicros();
        return (Double.isFinite(perRequest) ? number(perRequest) : "no answer")
                + String.format(Locale.ROOT, " (%.2f)", result.cores());
    }

    /**
     * "1.21 (64 %)": the cores class {@code i}'s work kept busy, and in brackets its share of the
     * work of every class, where the cell has more than one; "—" for a missing cell.
     */
    static String work(CellResult result, int i) {
        if (result == null) {
            return "—";
        }
        String cores = number(result.workCores(i));
        double share = result.workShare(i);
        return result.workSteps().size() == 1 || !Double.isFinite(share) ? cores
                : cores + String.format(Locale.ROOT, " (%.0f %%)", share * 100);
    }

    /** "0.512 / 3.40 / 5.10 / 9.80", or "none" when no answer came. */
    static String latencies(LoadResult result) {
        if (result.requests() == 0) {
            return "none";
        }
        return number(result.p50Micros() / 1e3) + " / " + number(result.p99Micros() / 1e3) + " / "
                + number(result.p999Micros() / 1e3) + " / " + number(result.maxMicros() / 1e3);
    }

    static String failures(LoadResult result) {
        return result.timeouts() + " / " + result.errors();
    }

    /** GMP over FJP to three significant digits; "—" when either is missing or FJP's is 0. */
    static String ratio(Optional<Double> gmp, Optional<Double> fjp) {
        if (gmp.isEmpty() || fjp.isEmpty() || !(fjp.get() > 0) || !Double.isFinite(gmp.get())) {
            return gmp.isPresent() && fjp.isPresent() && fjp.get() == 0 && gmp.get() > 0 ? "∞" : "—";
        }
        return number(gmp.get() / fjp.get());
    }

    /** Three significant digits below 100, whole numbers from there, thousands separated, no exponent: 1,612; 13.4; 0.512; 0.00130. */
    static String number(double value) {
        if (!Double.isFinite(value)) {
            return "—";
        }
        if (value == 0) {
            return "0";
        }
        // Rounded first, so that 99.96 is "100", not "100.0"; from 100 on, every digit (1,612).
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(3, RoundingMode.HALF_EVEN));
        double magnitude = Math.abs(rounded.doubleValue());
        if (magnitude >= 100) {
            return String.format(Locale.ROOT, "%,d", Math.round(value));
        }
        return rounded.setScale(Math.max(0, 2 - (int) Math.floor(Math.log10(magnitude))), RoundingMode.HALF_EVEN).toPlainString();
    }

    static final List<String> CSV_HEADER = List.of("shape", "server", "scheduler", "load", "class", "connections",
            "target_rate_per_s", "window_s", "requests", "requests_per_s", "connect_errors", "read_errors", "write_errors",
            "status_errors", "timeouts", "p50_us", "p99_us", "p999_us", "max_us", "mean_us", "littles_law_mean_us",
            "scheduled", "class_work_us", "class_work_cores", "cell_work_cores", "cell_cpu_ns",
            "cell_wall_ns", "cell_requests", "cell_cpu_per_request_us", "cell_cores", "server_requests", "drain_ms",
            "steps_per_us", "loadavg_1m");

    /** A row per cell and class, capacity probes included (shape "capacity"). */
    static String csv(List<CellResult> results) {
        StringBuilder csv = new StringBuilder(String.join(",", CSV_HEADER)).append('\n');
        for (CellResult result : results) {
            Cell cell = result.cell();
            for (int i = 0; i < cell.classes().size(); i++) {
                LoadResult load = result.classes().get(i);
                List<Object> row = new ArrayList<>(List.of(cell.capacityProbe() ? "capacity" : cell.shape().label, cell.server(),
                        cell.scheduler(), cell.level(), cell.classes().get(i).target(), cell.classes().get(i).connections(),
                        decimal(result.targetRate()), decimal(load.durationMicros() / 1e6), load.requests(),
                        decimal(load.requestsPerSecond()), load.connectErrors(), load.readErrors(), load.writeErrors(),
                        load.statusErrors(), load.timeouts(), load.p50Micros(), load.p99Micros(), load.p999Micros(),
                        load.maxMicros(), load.meanMicros(),
                        cell.openLoop() ? "" : decimal(load.littlesLawMeanMicros(cell.classes().get(i).connections())),
                        load.scheduled(), decimal(result.workSteps().get(i) / result.stepsPerMicro()),
                        decimal(result.workCores(i)), decimal(result.workCores()), result.cpuNanos(), result.wallNanos(), result.requests(),
                        decimal(result.cpuPerRequestMicros()), decimal(result.cores()), result.serverRequests(),
                        result.drainMillis(), decimal(result.stepsPerMicro()), decimal(result.loadAverage())));
                csv.append(String.join(",", row.stream().map(v -> field(String.valueOf(v))).toList())).append('\n');
            }
        }
        return csv.toString();
    }

    private static String decimal(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.3f", value) : "";
    }

    /** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
    static String field(String value) {
        if (value.contains(",") || value.contains("\"") || value.contains("\n")) {
            return '"' + value.replace("\"", "\"\"") + '"';
        }
        return value;
    }
}
