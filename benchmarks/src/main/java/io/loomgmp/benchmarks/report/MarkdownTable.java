package io.loomgmp.benchmarks.report;

import java.util.List;
import java.util.Locale;

/**
 * The report's table in Markdown: one row per {@link Comparison}, both schedulers (with each fork's
 * mean where the forks disagree), their ratio and a verdict.
 */
final class MarkdownTable {
    static final String HEADER = """
            | benchmark | metric | unit | GMP | FJP | GMP/FJP | verdict |
            |---|---|---|--:|--:|--:|---|
            """;

    private MarkdownTable() {
    }

    static String render(List<Comparison> comparisons) {
        StringBuilder table = new StringBuilder(HEADER);
        for (Comparison c : comparisons) {
            table.append("| ").append(c.label())
                    .append(" | ").append(c.metricLabel())
                    .append(" | ").append(c.unit())
                    .append(" | ").append(c.gmp().map(Score::textWithForks).orElse("—"))
                    .append(" | ").append(c.fjp().map(Score::textWithForks).orElse("—"))
                    .append(" | ").append(c.complete() && Double.isFinite(c.ratio()) ? ratioText(c.ratio(), c.ratioError())
                            : "—") // a count of 0 (TimedPark's back-offs) has no ratio
                    .append(" | ").append(c.complete() ? c.verdict() : "one scheduler only")
                    .append(" |\n");
        }
        return table.toString();
    }

    /** "0.54 ± 0.04"; small ratios keep three significant digits. */
    static String ratioText(double ratio, double error) {
        int decimals = Math.max(2, Score.decimals(ratio));
        String format = "%." + decimals + "f";
        return String.format(Locale.ROOT, format, ratio) + " ± "
                + (Double.isNaN(error) ? "n/a" : String.format(Locale.ROOT, format, error));
    }
}
