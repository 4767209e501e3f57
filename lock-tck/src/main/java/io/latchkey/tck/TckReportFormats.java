package io.latchkey.tck;

import io.latchkey.tck.TckReport.Rule;
import io.latchkey.tck.TckReport.Run;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.platform.engine.TestExecutionResult.Status;

/** The two forms of a {@link TckReport}: JUnit XML for CI servers, one page of Markdown for people. */
final class TckReportFormats {
    private TckReportFormats() {}

    static String junitXml(Run run) {
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.append(TckReport.locale(
                "<testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%d\""
                        + " timestamp=\"%s\">\n",
                xml(run.className()),
                run.rules().size() + (run.setupFailure() == null ? 0 : 1),
                run.count(Status.FAILED),
                run.setupFailure() == null ? 0 : 1,
                run.count(Status.ABORTED),
                run.seconds(),
                run.started()));
        x.append("  <properties>\n");
        property(x, "latchkey.backend", run.backend());
        property(x, "latchkey.tck.version", run.tckVersion());
        property(x, "java.version", System.getProperty("java.version"));
        x.append("  </properties>\n");
        for (Rule r : run.rules()) {
            x.append(TckReport.locale(
                    "  <testcase name=\"%s\" classname=\"%s\" time=\"%.3f\"",
                    xml(r.method()),
                    xml(run.className()),
                    r.millis() / 1000.0));
            String figures = String.join("\n", r.notes().figures());
            if (r.status() == Status.SUCCESSFUL && figures.isEmpty()) {
                x.append("/>\n");
                continue;
            }
            x.append(">\n");
            if (r.status() == Status.FAILED) {
                x.append("    <failure message=\"")
                        .append(xml(firstLine(r.message())))
                        .append("\">")
                        .append(xml(r.message()))
                        .append("</failure>\n");
            } else if (r.status() == Status.ABORTED) {
                x.append("    <skipped message=\"").append(xml(r.message())).append("\"/>\n");
            }
            if (!figures.isEmpty()) {
                x.append("    <system-out>").append(xml(figures)).append("</system-out>\n");
            }
            x.append("  </testcase>\n");
        }
        if (run.setupFailure() != null) {
            x.append("  <testcase name=\"(class set-up or tear-down)\" classname=\"")
                    .append(xml(run.className()))
                    .append("\" time=\"0\">\n    <error message=\"")
                    .append(xml(firstLine(run.setupFailure())))
                    .append("\">")
                    .append(xml(run.setupFailure()))
                    .append("</error>\n  </testcase>\n");
        }
        return x.append("</testsuite>\n").toString();
    }

    static String markdown(Run run) {
        long passed = run.count(Status.SUCCESSFUL);
        long failed = run.count(Status.FAILED);
        long skipped = run.count(Status.ABORTED);
        boolean green = failed == 0 && run.setupFailure() == null && passed > 0;
        StringBuilder m = new StringBuilder();
        m.append("# Latchkey TCK report: ").append(cell(run.displayName())).append("\n\n");
        m.append("| | |\n|---|---|\n");
        m.append("| Verdict | **")
                .append(green ? "PASSED" : "FAILED")
                .append("**: ")
                .append(TckReport.locale(
                        "%d passed, %d failed, %d skipped of %d rules", passed, failed, skipped, run.rules().size()))
                .append(" |\n");
        m.append("| Backend | `").append(cell(run.backend())).append("` |\n");
        m.append("| TCK class | `").append(run.className()).append("` |\n");
        m.append("| Run | ")
                .append(run.started())
                .append(", ")
                .append(run.seconds())
                .append(" s |\n");
        m.append("| Machine | Java ")
                .append(System.getProperty("java.version"))
                .append(" (")
                .append(System.getProperty("java.vendor"))
                .append("), ")
                .append(System.getProperty("os.name"))
                .append(' ')
                .append(System.getProperty("os.arch"))
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" CPUs |\n");
        m.append("| lock-tck | ").append(run.tckVersion()).append(" |\n\n");
        if (run.setupFailure() != null) {
            m.append("**The class failed outside its rules (set-up or tear-down):** ").append(cell(run.setupFailure())).append("\n\n");
        }
        m.append("## Rule groups\n\n| Group | Passed | Failed | Skipped |\n|---|---:|---:|---:|\n");
        run.byGroup().forEach((g, c) -> m.append(TckReport.locale("| %s | %d | %d | %d |%n", g, c[0], c[1], c[2])));
        m.append('\n');
        List<Rule> failures =
                run.rules().stream().filter(r -> r.status() == Status.FAILED).toList();
        if (!failures.isEmpty()) {
            m.append("## Failures\n\n");
            for (Rule r : failures) {
                m.append("- `")
                        .append(r.method())
                        .append("` (")
                        .append(String.join(", ", r.groups()))
                        .append("): ")
                        .append(cell(r.message()))
                        .append('\n');
            }
            m.append('\n');
        }
        Map<String, List<String>> skippedByReason = new LinkedHashMap<>();
        run.rules().stream()
                .filter(r -> r.status() == Status.ABORTED)
                .forEach(r -> skippedByReason
                        .computeIfAbsent(r.message().isBlank() ? "(no reason given)" : r.message(), k -> new ArrayList<>())
                        .add(r.method()));
        if (!skippedByReason.isEmpty()) {
            m.append("## Skipped, by reason\n\n");
            skippedByReason.forEach((reason, methods) -> m.append("- ")
                    .append(cell(reason))
                    .append(": `")
                    .append(String.join("`, `", methods))
                    .append("`\n"));
            m.append('\n');
        }
        List<String> figures = run.rules().stream()
                .flatMap(r -> r.notes().figures().stream())
                .map(f -> f.startsWith("FIGURE ") ? f.substring("FIGURE ".length()) : f)
                .toList();
        if (!figures.isEmpty()) {
            m.append("## Figures measured\n\n");
            figures.forEach(f -> m.append("- ").append(cell(f)).append('\n'));
        }
        return m.toString();
    }

    private static void property(StringBuilder x, String name, String value) {
        x.append("    <property name=\"")
                .append(xml(name))
                .append("\" value=\"")
                .append(xml(value == null ? "" : value))
                .append("\"/>\n");
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

    /** Escapes text for XML content and attributes; drops characters XML 1.0 cannot carry. */
    static String xml(String text) {
        StringBuilder b = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&apos;");
                default -> {
                    if (c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)
                            || c >= 0x10000) {
                        b.appendCodePoint(c);
                    }
                }
            }
        });
        return b.toString();
    }

    /** One line of Markdown: newlines folded, pipes escaped (the text may sit in a table cell). */
    static String cell(String text) {
        return text.replace("\r", "").replace("\n", " ").replace("|", "\\|");
    }
}
