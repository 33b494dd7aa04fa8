package io.loomgmp.benchmarks.report;

import org.knowm.xchart.AnnotationLine;
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

/**
 * The report's chart (XChart): for each comparison, GMP's cost relative to ForkJoinPool
 * ({@link Comparison#costRatio()}: time and latency ratios as they are, throughput inverted), so
 * that every bar reads the same way: below the line at 1, GMP did better. ForkJoinPool's bar is 1
 * with its own relative error. Error bars are JMH's; the axis is logarithmic because ratios of
 * latencies under load span orders of magnitude.
 */
final class RatioChart {
    static final int WIDTH = 1400;
    static final int HEIGHT = 900;
    static final Color GMP_COLOR = new Color(0x1F, 0x77, 0xB4);
    static final Color FJP_COLOR = new Color(0xB0, 0xB0, 0xB0);

    private RatioChart() {
    }

    static void write(List<Comparison> comparisons, String subtitle, Path png) throws IOException {
        ImageIO.write(draw(comparisons, subtitle), "png", png.toFile());
    }

    static BufferedImage draw(List<Comparison> comparisons, String subtitle) {
        List<String> labels = new ArrayList<>();
        List<Double> gmp = new ArrayList<>();
        List<Double> gmpError = new ArrayList<>();
        List<Double> fjp = new ArrayList<>();
        List<Double> fjpError = new ArrayList<>();
        double low = 1;
        double high = 1;
        for (Comparison c : comparisons) {
            if (!c.complete()) {
                continue;
            }
            double cost = c.costRatio();
            // A bar on a log axis cannot reach 0: clip an error bar that would.
            double error = clip(cost, c.costRatioError());
            Score f = c.fjp().orElseThrow();
            double fjpRelative = clip(1, f.hasError() ? f.error() / f.value() : 0);
            labels.add(c.label() + (c.metric().isEmpty() ? "" : " " + c.metricLabel())
                    + (c.gmp().orElseThrow().higherIsBetter() ? " (1/throughput)" : ""));
            gmp.add(cost);
            gmpError.add(error);
            fjp.add(1.0);
            fjpError.add(fjpRelative);
            low = Math.min(low, Math.min(cost - error, 1 - fjpRelative));
            high = Math.max(high, Math.max(cost + error, 1 + fjpRelative));
        }
        if (labels.isEmpty()) {
            throw new IllegalArgumentException("no benchmark has results for both schedulers: nothing to chart");
        }
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("GMP relative to ForkJoinPool (below 1: GMP better)")
                .yAxisTitle("GMP cost / FJP cost (time and latency; throughput inverted), log scale")
                .xAxisTitle(subtitle)
                .build();
        chart.getStyler()
                .setYAxisLogarithmic(true)
                .setYAxisMin(Math.pow(10, Math.floor(Math.log10(low))))
                .setYAxisMax(Math.pow(10, Math.ceil(Math.log10(high))))
                .setXAxisLabelRotation(55)
                .setErrorBarsColor(Color.BLACK)
                .setPlotGridVerticalLinesVisible(false)
                .setLegendPosition(Styler.LegendPosition.InsideNE)
                .setSeriesColors(new Color[] {GMP_COLOR, FJP_COLOR})
                .setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        chart.getStyler().setAvailableSpaceFill(0.8);
        chart.addSeries("GMP", labels, gmp, gmpError);
        chart.addSeries("ForkJoinPool (= 1)", labels, fjp, fjpError);
        chart.addAnnotation(new AnnotationLine(1.0, false, false));
        return BitmapEncoder.getBufferedImage(chart);
    }

    private static double clip(double value, double error) {
        return Double.isNaN(error) ? 0 : Math.min(error, 0.9 * value);
    }
}
