package io.latchkey.cli;

import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Prints one line per TCK rule as it finishes: passed, FAILED (with the reason) or skipped (with the
 * reason: a capability not claimed, a fault hook not available). JUnit calls it from the thread running
 * the tests (the TCK runs sequentially); counters are atomic anyway and each line is printed whole.
 */
final class TckProgress implements TestExecutionListener {
    private final PrintWriter out;
    final AtomicInteger passed = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicInteger skipped = new AtomicInteger();

    TckProgress(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        if (test.isTest()) {
            skipped.incrementAndGet();
            line("skipped", test, reason);
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        String reason = result.getThrowable().map(TckProgress::reason).orElse("");
        if (!test.isTest()) {
            if (result.getStatus() == TestExecutionResult.Status.FAILED) {
                failed.incrementAndGet();
                line("FAILED", test, "(setup) " + reason);
            }
            return;
        }
        switch (result.getStatus()) {
            case SUCCESSFUL -> {
                passed.incrementAndGet();
                line("passed", test, "");
            }
            case ABORTED -> {
                skipped.incrementAndGet();
                line("skipped", test, reason);
            }
            case FAILED -> {
                failed.incrementAndGet();
                line("FAILED", test, reason);
            }
        }
    }

    private void line(String verdict, TestIdentifier test, String reason) {
        String text =
                String.format("%-8s %s%s", verdict, test.getDisplayName(), reason.isEmpty() ? "" : " -- " + reason);
        out.println(text);
        out.flush();
    }

    private static String reason(Throwable t) {
        String msg = t.getMessage();
        String text = (msg == null || msg.isBlank()) ? t.getClass().getSimpleName() : msg;
        text = text.replace("Assumption failed: ", "");
        text = UsageErrors.oneLine(text);
        return text.length() > 400 ? text.substring(0, 400) + "..." : text;
    }
}
