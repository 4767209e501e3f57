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
 * (p50, p99) per backend. Both axes are logarithmic when every value is positive, because an in-JVM store
 * and a networked server differ by orders of magnitude and a linear axis flattens the servers to nothing;
 * backend labels are slanted so that eight of them stay readable. Off-screen (headless). Runs on the main
 * thread after measuring.
 */
final class BenchChart {
    private BenchChart() {}

    static void write(List<BenchResult> results, Path file) throws IOException {
        List<BenchResult> ok = results.stream().filter(r -> r.failure() == null).toList();
        List<String> labels = ok.stream().map(BenchResult::label).toList();
        int threads = ok.isEmpty() ? 0 : ok.get(0).threads();

        int width = Math.max(640, 90 * labels.size() + 160);
        CategoryChart throughput = new CategoryChartBuilder()
                .width(width)
                .height(480)
                .title("Lock cycles per second (" + threads + " contending clients)")
                .xAxisTitle("backend")
                .yAxisTitle("acquire + release per second")
                .build();
        List<Double> cycles = ok.stream().map(BenchResult::cyclesPerSecond).toList();
        style(throughput, cycles);
        throughput.addSeries("cycles/s", labels, cycles);

        CategoryChart latency = new CategoryChartBuilder()
                .width(width)
                .height(480)
                .title("Time to acquire (waiting included)")
                .xAxisTitle("backend")
                .yAxisTitle("milliseconds")
                .build();
        List<Double> p50 = ok.stream().map(r -> r.p50Nanos() / 1e6).toList();
        List<Double> p99 = ok.stream().map(r -> r.p99Nanos() / 1e6).toList();
        style(
                latency,
                java.util.stream.Stream.concat(p50.stream(), p99.stream()).toList());
        latency.addSeries("p50", labels, p50);
        latency.addSeries("p99", labels, p99);

        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(List.of(throughput, latency), 1, 2, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static void style(CategoryChart chart, List<Double> values) {
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisLabelRotation(30);
        // XChart rejects values <= 0 on a logarithmic axis, and bars start at 0 unless the axis minimum is set
        if (!values.isEmpty() && values.stream().allMatch(v -> v > 0)) {
            double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(1);
            chart.getStyler().setYAxisLogarithmic(true);
            chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
        }
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setLabelsVisible(false);
    }
}
