package dev.baton.bench.report;

import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * Draws the latency distribution of each candidate of one scenario as a cumulative curve (latency on a logarithmic
 * axis, the share of samples at or below it upwards) and writes it as a PNG. Each curve is drawn from at most
 * {@value #POINTS} quantiles plus the tail (p99, p99.9, max), so a chart stays a few tens of kilobytes whatever the
 * number of samples. Runs headless ({@code java.awt.headless} is set before the first chart).
 */
final class CdfChart {

    static final int POINTS = 100;
    static final int MAX_LABEL = 50;
    private static final double[] TAIL = {0.99, 0.995, 0.999, 1.0};
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0x17becf)};

    private CdfChart() {
    }

    /**
     * Writes {@code curves} (name -> summary with its samples) as one chart to {@code png}; curves without samples
     * are left out.
     *
     * @return whether a chart was written (false if no curve had samples)
     */
    static boolean write(String title, Map<String, Summary> curves, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(760).height(500).title(title)
                .xAxisTitle("latency, ms (logarithmic axis); legend: p50 / p99")
                .yAxisTitle("share of samples at or below (%)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS)
                .setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 14))
                .setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11))
                .setChartBackgroundColor(Color.WHITE)
                .setMarkerSize(0)
                .setAntiAlias(false); // a third of the bytes: the charts are committed with the docs
        chart.getStyler().setXAxisLogarithmic(true).setYAxisMin(0.0).setYAxisMax(100.0).setYAxisDecimalPattern("#0")
                .setPlotGridLinesColor(new Color(0xdddddd));
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        int drawn = 0;
        for (Map.Entry<String, Summary> curve : curves.entrySet()) {
            Summary s = curve.getValue();
            if (!s.hasSamples()) {
                continue;
            }
            double[][] xy = points(s);
            XYSeries series = chart.addSeries(label(curve.getKey(), s), xy[0], xy[1]);
            series.setLineColor(COLORS[drawn % COLORS.length]);
            series.setLineStyle(new BasicStroke(1.8f));
            drawn++;
        }
        if (drawn == 0) {
            return false;
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
        return true;
    }

    /**
     * The legend entry: p50 / p99, then the candidate. XChart cuts an entry of more than about sixty characters at its
     * end, so a long name loses its middle here instead, and the figures come first.
     */
    static String label(String candidate, Summary s) {
        String figures = MarkdownTable.millis(s.p50()) + " / " + MarkdownTable.millis(s.p99()) + " ms  ";
        int room = MAX_LABEL - figures.length();
        String name = candidate.length() <= room ? candidate
                : candidate.substring(0, room / 2 - 1) + "…" + candidate.substring(candidate.length() - room / 2);
        return figures + name;
    }

    /** x (ms) and y (% at or below) of the curve: evenly spaced quantiles, then the tail. */
    static double[][] points(Summary s) {
        int n = Math.min(POINTS, s.count());
        double[] x = new double[n + 1 + TAIL.length];
        double[] y = new double[x.length];
        x[0] = Math.max(s.quantile(0) / 1e6, 1e-3);
        y[0] = 0;
        for (int i = 1; i <= n; i++) {
            double q = (double) i / n * 0.99;
            x[i] = Math.max(s.quantile(q) / 1e6, 1e-3);
            y[i] = q * 100;
        }
        for (int t = 0; t < TAIL.length; t++) {
            x[n + 1 + t] = Math.max(s.quantile(TAIL[t]) / 1e6, 1e-3);
            y[n + 1 + t] = TAIL[t] * 100;
        }
        return new double[][] {x, y};
    }
}
