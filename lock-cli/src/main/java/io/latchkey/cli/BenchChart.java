package io.latchkey.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Draws {@code bench}'s results with XChart as one PNG: cycles per second per backend, and acquire latency
 * (p50, p99) per backend. Off-screen (headless). Runs on the main thread after measuring.
 */
final class BenchChart {
    private BenchChart() {
    }

    static void write(List<BenchResult> results, Path file) throws IOException {
        List<BenchResult> ok = results.stream().filter(r -> r.failure() == null).toList();
        List<String> labels = ok.stream().map(BenchResult::label).toList();
        int threads = ok.isEmpty() ? 0 : ok.get(0).threads();

        CategoryChart throughput = new CategoryChartBuilder().width(640).height(420)
                .title("Lock cycles per second (" + threads + " contending clients)")
                .xAxisTitle("backend").yAxisTitle("acquire + release per second").build();
        style(throughput);
        throughput.addSeries("cycles/s", labels, ok.stream().map(BenchResult::cyclesPerSecond).toList());

        CategoryChart latency = new CategoryChartBuilder().width(640).height(420)
                .title("Time to acquire (waiting included)").xAxisTitle("backend").yAxisTitle("milliseconds").build();
        style(latency);
        latency.addSeries("p50", labels, ok.stream().map(r -> r.p50Nanos() / 1e6).toList());
        latency.addSeries("p99", labels, ok.stream().map(r -> r.p99Nanos() / 1e6).toList());

        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(List.of(throughput, latency), 1, 2, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static void style(CategoryChart chart) {
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setLabelsVisible(false);
    }
}
