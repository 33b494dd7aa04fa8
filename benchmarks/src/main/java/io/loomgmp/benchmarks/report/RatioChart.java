package io.loomgmp.benchmarks.report;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Font;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's chart (XChart): one bar per comparison, GMP's cost relative to ForkJoinPool
 * ({@link Comparison#costRatio()}: the ratio for times and latencies, its inverse for throughput),
 * so that every bar reads the same way: down from the line at ×1, GMP did better; up, worse.
 *
 * <p>The bars are drawn on a linear axis of log2(cost ratio), labelled with the ratio itself:
 * ratios of latencies under load span orders of magnitude, and XChart's logarithmic axis draws
 * error bars of bars badly (they drop to the bottom of the plot), while on a linear axis it draws
 * them right. The error bar is the ratio's relative error e (JMH's errors of both schedulers, in
 * quadrature) as log2(1 + e) either way: the upper end exactly, the lower one about right while e
 * is small, and still finite when e is not (JMH's interval from three iterations can be wider than
 * the score). The colour is the table's verdict.
 */
final class RatioChart {
    static final int WIDTH = 1400;
    static final int HEIGHT = 900;
    static final Color BETTER = new Color(0x1F, 0x77, 0xB4);
    static final Color WORSE = new Color(0xD6, 0x27, 0x28);
    static final Color UNDECIDED = new Color(0xA0, 0xA0, 0xA0);
    private static final double LN2 = Math.log(2);

    private RatioChart() {
    }

    static void write(List<Comparison> comparisons, String subtitle, Path png) throws IOException {
        ImageIO.write(draw(comparisons, subtitle), "png", png.toFile());
    }

    static BufferedImage draw(List<Comparison> comparisons, String subtitle) {
        List<String> labels = new ArrayList<>();
        List<List<Double>> values = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        List<List<Double>> errors = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        double low = -1;
        double high = 1;
        for (Comparison c : comparisons) {
            if (!c.complete() || !(c.costRatio() > 0 && Double.isFinite(c.costRatio()))) {
                continue; // one scheduler only, or no ratio to draw on a log scale (a count of 0)
            }
            labels.add(c.label() + (c.metric().isEmpty() ? "" : " " + c.metricLabel())
                    + (c.gmp().orElseThrow().higherIsBetter() ? " (1/throughput)" : ""));
            double log2 = Math.log(c.costRatio()) / LN2;
            double error = Double.isNaN(c.ratioError()) ? 0 : Math.log1p(c.ratioError() / c.ratio()) / LN2;
            int series = switch (c.verdict()) {
                case "GMP better" -> 0;
                case "FJP better" -> 1;
                default -> 2;
            };
            for (int s = 0; s < 3; s++) {
                values.get(s).add(s == series ? log2 : 0.0);
                errors.get(s).add(s == series ? error : 0.0);
            }
            low = Math.min(low, log2 - error);
            high = Math.max(high, log2 + error);
        }
        if (labels.isEmpty()) {
            throw new IllegalArgumentException("no benchmark has results for both schedulers: nothing to chart");
        }
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("GMP's cost relative to ForkJoinPool (time and latency; 1/throughput): below ×1, GMP did better")
                .yAxisTitle("GMP cost / FJP cost, log scale")
                .xAxisTitle(subtitle)
                .build();
        chart.getStyler()
                .setYAxisMin(Math.floor(low))
                .setYAxisMax(Math.ceil(high))
                .setyAxisTickLabelsFormattingFunction(RatioChart::ratioLabel)
                .setXAxisLabelRotation(90)
                .setErrorBarsColor(Color.BLACK)
                .setPlotGridVerticalLinesVisible(false)
                .setLegendPosition(Styler.LegendPosition.OutsideS) // inside, it hid the first bars
                .setLegendLayout(Styler.LegendLayout.Horizontal)
                .setSeriesColors(new Color[] {BETTER, WORSE, UNDECIDED})
                .setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        chart.getStyler().setOverlapped(true); // one bar per comparison: the series only colour it
        chart.getStyler().setAvailableSpaceFill(0.6);
        chart.addSeries("GMP better", labels, values.get(0), errors.get(0));
        chart.addSeries("FJP better", labels, values.get(1), errors.get(1));
        chart.addSeries("within error (or no error bars)", labels, values.get(2), errors.get(2));
        return BitmapEncoder.getBufferedImage(chart);
    }

    /** A tick at log2(ratio) = v, labelled with the ratio: "×4", "×1", "×1/8", "×1.41". */
    static String ratioLabel(double log2) {
        double ratio = Math.pow(2, Math.abs(log2));
        String text = Math.abs(ratio - Math.rint(ratio)) < 1e-9
                ? String.format(Locale.ROOT, "%.0f", ratio) : String.format(Locale.ROOT, "%.3g", ratio);
        return log2 < 0 ? "×1/" + text : "×" + text;
    }
}
