package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code latchkey bench}: a table with a row per backend, no exclusion violation, a PNG chart, the JMH note. */
class BenchIT {
    @TempDir
    Path temp;

    @Test
    void benchesMemAndH2AndWritesAChart() throws Exception {
        try (LatchkeyJar cli = new LatchkeyJar(temp)) {
            Path chart = temp.resolve("out/bench.png");
            LatchkeyJar.Result r = cli.run("bench", "--backends", "mem,h2", "--duration", "1s", "--threads", "3",
                    "--chart", chart.toString());
            assertThat(r.exit()).as(r.toString()).isZero();
            List<String> lines = r.stdout().lines().toList();
            assertThat(lines.get(0)).as(r.toString()).startsWith("BACKEND").contains("CYCLES/S", "HANDOFF %", "P50 ACQUIRE", "P99 ACQUIRE", "OVERLAPS");
            assertThat(lines).as(r.toString()).anyMatch(l -> l.matches("^mem\\s+3\\s+[1-9]\\d*\\s+.*\\s0$"))
                    .anyMatch(l -> l.matches("^h2 \\(embedded file\\)\\s+3\\s+[1-9]\\d*\\s+.*\\s0$"));
            assertThat(r.stdout()).contains("JMH suite in the jmh module");
            byte[] png = Files.readAllBytes(chart);
            assertThat(png).as("a PNG file").startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
            assertThat(r.stderr()).as("a progress bar").contains("bench");
        }
    }

    @Test
    void aBackendThatCannotBeReachedIsReportedNotHidden() {
        try (LatchkeyJar cli = new LatchkeyJar(temp)) {
            LatchkeyJar.Result r = cli.run("bench", "--backends", "mem,jdbc:postgresql://127.0.0.1:1/none", "--duration", "1s",
                    "--threads", "1", "--no-chart");
            assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.BACKEND_UNAVAILABLE);
            assertThat(r.stdout()).as(r.toString()).contains("not measured:");
        }
    }
}
