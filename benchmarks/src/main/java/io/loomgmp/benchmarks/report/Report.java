package io.loomgmp.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Turns JMH's JSON into the report a person reads: {@value #MARKDOWN} (the table with both
 * schedulers, their ratio with its error and a verdict; the hand-offs as multiples of the floor;
 * the CPU time per operation and the cores used) and {@value #CHART} (the ratios of wall time and
 * latency as bars with error bars), and the README's benchmark section.
 *
 * <p>Re-render from a saved result file: {@code java -cp benchmarks/target/benchmarks.jar
 * io.loomgmp.benchmarks.report.Report benchmarks/results/jmh-result.json benchmarks/results "machine line"}.
 */
public final class Report {
    public static final String MARKDOWN = "results.md";
    public static final String CHART = "chart.png";
    private static final String PACKAGE = "io.loomgmp.benchmarks.";

    static final String HOW_TO_READ = """
            GMP and FJP: JMH's score ± the half-width of its 99.9 % confidence interval, over all \
            iterations and forks ("n/a" when there were too few iterations for one); where the forks' \
            means spread over more than 10 % of the score, each fork's mean follows in brackets: a \
            bimodal benchmark gives one mode or the other per JVM, and the mean is neither. GMP/FJP: the ratio \
            of the two scores, ± its error from the two relative errors. For times and latencies below 1 \
            means GMP took less; for throughput (ops/s) above 1 means GMP did more. Verdict: "within \
            error" when the two confidence intervals overlap. `p50`/`p99` rows are percentiles of a \
            latency histogram recorded in each iteration, averaged over the iterations. Every benchmark \
            ran in its own JVMs: GMP with `-javaagent:loom-gmp-agent.jar`, FJP without.""";

    private Report() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: Report <jmh-result.json> <output directory> <machine line>");
            System.exit(2);
        }
        write(Path.of(args[0]), Path.of(args[1]), args[2]);
    }

    /** Writes {@value #MARKDOWN} and {@value #CHART} into {@code outDir}. */
    public static void write(Path json, Path outDir, String machine) throws IOException {
        List<Comparison> comparisons = JmhJson.read(json);
        Files.createDirectories(outDir);
        Path relativeJson = outDir.toAbsolutePath().relativize(json.toAbsolutePath());
        String markdown = "# loom-gmp benchmarks: GMP against ForkJoinPool\n\n"
                + "Measured on " + machine + ".\n\n"
                + MarkdownTable.render(wallTime(comparisons)) + "\n"
                + HOW_TO_READ + "\n\n"
                + floorAndCpuSections(comparisons, "##")
                + "![GMP relative to ForkJoinPool](" + CHART + ")\n\n"
                + "JMH's own results: [" + relativeJson + "](" + relativeJson + ").\n";
        Files.writeString(outDir.resolve(MARKDOWN), markdown);
        RatioChart.write(wallTime(comparisons), machine, outDir.resolve(CHART));
    }

    /**
     * The README's section: the machine line, the table, the chart, which is at {@code chartPath},
     * and the floor and CPU tables.
     */
    public static String readmeSection(Path json, String chartPath, String machine) throws IOException {
        List<Comparison> comparisons = JmhJson.read(json);
        return "Measured on " + machine + ".\n\n"
                + MarkdownTable.render(wallTime(comparisons)) + "\n"
                + "![GMP relative to ForkJoinPool, below 1 is better for GMP](" + chartPath + ")\n\n"
                + floorAndCpuSections(comparisons, "###");
    }

    /** The comparisons of wall time and latency: all but the CPU metrics, which have their own table. */
    private static List<Comparison> wallTime(List<Comparison> comparisons) {
        return comparisons.stream().filter(c -> !c.isCpu()).toList();
    }

    /** The floor table and the CPU table, each under a heading of {@code level} ("##"), with how to read it. */
    static String floorAndCpuSections(List<Comparison> comparisons, String level) {
        StringBuilder sections = new StringBuilder();
        sections.append(level).append(" Hand-offs as multiples of the floor\n\n");
        FloorTable.render(comparisons).ifPresentOrElse(
                table -> sections.append(table).append('\n').append(FloorTable.HOW_TO_READ).append("\n\n"),
                () -> sections.append("These results have no floor: run `FloorBenchmark` with the hand-off"
                        + " benchmarks (`./loomgmp bench 'Floor|PingPong|Ring|TimedPark|YieldStorm'`).\n\n"));
        CpuTable.render(comparisons).ifPresent(table -> sections.append(level).append(" CPU time per operation\n\n")
                .append(table).append('\n').append(CpuTable.HOW_TO_READ).append("\n\n"));
        return sections.toString();
    }

    /** "812 ± 40 ms/op". */
    public static String scoreText(double score, double error, String unit) {
        return new Score(score, error, unit).text() + " " + unit;
    }

    /** {@code io.loomgmp.benchmarks.SkynetBenchmark.tree} → {@code Skynet.tree}. */
    public static String shortName(String benchmark) {
        String name = benchmark.startsWith(PACKAGE) ? benchmark.substring(PACKAGE.length()) : benchmark;
        return name.replace("Benchmark.", ".");
    }
}
