package io.latchkey.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code latchkey bench}: a quick side-by-side of backends on this machine, with a progress bar, a table
 * and a PNG chart. It is a first look, not a measurement to quote: no forks, no warm-up, one run. The JMH
 * suite in the {@code jmh} module is the rigorous one, and the output says so. Backends run one after the
 * other on the main thread ({@link BenchRunner} starts the workers). A keyword's server is started by
 * {@link BenchTarget} before the backend's clock starts and stopped when its turn ends (or by a shutdown hook
 * on Ctrl-C); one that cannot be started is a "not measured" row, and the next backend runs.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs a short side-by-side of backends: N clients contend for one lock; shows a progress bar, "
                    + "prints cycles/s, hand-off rate and p50/p99 time to acquire, and writes a PNG chart.",
            "Keywords start something throw-away on this machine (free loopback port, temporary data directory, "
                    + "durability relaxed; stopped afterwards, also on Ctrl-C; start-up is not measured): mem (in-JVM store), "
                    + "h2 (H2 file), redis (redis-server), postgres / postgres-session (PostgreSQL; lock-jdbc lease / session "
                    + "mode), mariadb (mariadbd), zookeeper (in-process server), etcd. A missing binary is reported with the "
                    + "Debian package to install; the other backends still run.",
            "Anything else is a backend URI you run, e.g. jdbc:postgresql://host/db or redlock://h1:p1,h2:p2,h3:p3.",
            "A first look only: the JMH suite in the jmh module is the rigorous measurement.",
            ""
        },
        footerHeading = "%nExit status:%n",
        footer = {
            "  0 measured, 1 an exclusion violation was seen, 64 usage error,",
            "  69 a backend could not be measured"
        })
public final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = {"-B", "--backends"},
            paramLabel = "LIST",
            defaultValue = "mem,h2",
            description = "Comma-separated keywords or URIs (default: ${DEFAULT-VALUE}).")
    String backends;

    @Option(
            names = {"-d", "--duration"},
            paramLabel = "DURATION",
            defaultValue = "10s",
            converter = DurationConverter.class,
            description = "Measuring time per backend (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = {"-t", "--threads"},
            paramLabel = "N",
            defaultValue = "4",
            description = "Contending clients, one thread each (1-256, default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(
            names = "--chart",
            paramLabel = "FILE",
            defaultValue = "latchkey-bench.png",
            description = "Where to write the PNG chart (default: ${DEFAULT-VALUE}).")
    Path chart;

    @Option(names = "--no-chart", description = "Do not write a chart.")
    boolean noChart;

    @Option(
            names = {"-s", "--setting"},
            paramLabel = "KEY=VALUE",
            description = "A backend setting for the URIs you give (repeatable).")
    Map<String, String> settings = new LinkedHashMap<>();

    @Override
    public Integer call() throws InterruptedException, IOException {
        if (threads < 1 || threads > 256) {
            throw new ParameterException(spec.commandLine(), "--threads must be 1-256, was " + threads);
        }
        if (duration.isZero() || duration.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--duration must be positive, for example 10s");
        }
        List<String> items = BenchTarget.split(backends);
        if (items.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--backends is empty; for example --backends mem,h2");
        }
        items.forEach(BenchTarget::check);
        PrintWriter out = spec.commandLine().getOut();
        List<BenchResult> results = new ArrayList<>();
        long perBackend = duration.toMillis();
        try (ProgressBar bar = new ProgressBarBuilder()
                .setTaskName("bench")
                .setInitialMax(perBackend * items.size())
                .setStyle(System.console() != null ? ProgressBarStyle.COLORFUL_UNICODE_BLOCK : ProgressBarStyle.ASCII)
                .setUnit("s", 1000)
                .setUpdateIntervalMillis(200)
                .hideEta()
                .continuousUpdate()
                .build()) {
            for (int i = 0; i < items.size(); i++) {
                long base = i * perBackend;
                String item = items.get(i);
                bar.setExtraMessage(item);
                // a keyword's server starts here, before BenchRunner starts the clock
                try (BenchTarget target = BenchTarget.start(item, threads, settings)) {
                    results.add(
                            BenchRunner.run(target, target.settings, threads, duration, ms -> bar.stepTo(base + ms)));
                } catch (RuntimeException e) {
                    results.add(BenchResult.failed(item, threads, UsageErrors.oneLine(String.valueOf(e.getMessage()))));
                }
                bar.stepTo(base + perBackend);
            }
        }
        out.print(table(results));
        if (!noChart && results.stream().anyMatch(r -> r.failure() == null)) {
            BenchChart.write(results, chart);
            out.println("chart: " + chart.toAbsolutePath());
        }
        out.println("A first look: one run of " + duration.toMillis() / 1000.0
                + " s per backend, no warm-up, no forks, on a machine "
                + "that may be busy. For rigorous figures use the JMH suite in the jmh module (see its README).");
        if (results.stream().anyMatch(r -> r.overlaps() > 0)) {
            out.println("EXCLUSION VIOLATED: two clients held the lock at once (see 'overlaps'); please report it.");
            return ExitCodes.NEGATIVE;
        }
        return results.stream().anyMatch(r -> r.failure() != null) ? ExitCodes.BACKEND_UNAVAILABLE : ExitCodes.OK;
    }

    static String table(List<BenchResult> results) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "BACKEND",
            "CLIENTS",
            "CYCLES/S",
            "HANDOFF %",
            "P50 ACQUIRE",
            "P99 ACQUIRE",
            "TIMEOUTS",
            "ERRORS",
            "OVERLAPS"
        });
        for (BenchResult r : results) {
            if (r.failure() != null) {
                rows.add(new String[] {
                    r.label(), Integer.toString(r.threads()), "not measured: " + r.failure(), "", "", "", "", "", ""
                });
                continue;
            }
            rows.add(new String[] {
                r.label(),
                Integer.toString(r.threads()),
                String.format(Locale.ROOT, "%.0f", r.cyclesPerSecond()),
                String.format(Locale.ROOT, "%.1f", r.handoffPercent()),
                millis(r.p50Nanos()),
                millis(r.p99Nanos()),
                Long.toString(r.timeouts()),
                Long.toString(r.errors()),
                Long.toString(r.overlaps())
            });
        }
        return Tables.render(rows);
    }

    private static String millis(long nanos) {
        if (nanos < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
        }
        return String.format(Locale.ROOT, nanos < 10_000_000 ? "%.2f ms" : "%.1f ms", nanos / 1e6);
    }
}
