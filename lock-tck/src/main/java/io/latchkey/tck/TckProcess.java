package io.latchkey.tck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/*
 * A recipe instance in a child JVM, for the rules that must survive a real SIGKILL. The child runs a main class on
 * the test's own class path and reports what happens to it as lines on stdout ("ELECTED 17", "ASSIGNED a 42");
 * the parent reads them on a daemon thread into a list and waits for lines with Awaitility. Its stderr is kept in a
 * bounded tail that every timeout message carries, so a child that failed to start says why.
 *
 * The child learns the store from its environment (ProcessBackend), and exits by itself when its stdin closes,
 * so a test JVM that dies never leaves children behind.
 */
/**
 * A recipe instance in a child JVM, for rules that must survive a real SIGKILL: it reports what happens to it as
 * lines on stdout, which the parent waits for.
 */
public final class TckProcess implements AutoCloseable {
    static final String URI_ENV = "LATCHKEY_TCK_URI";
    static final String SETTINGS_ENV = "LATCHKEY_TCK_SETTINGS";
    private static final int STDERR_TAIL = 4000;

    private final String label;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final StringBuilder stderr = new StringBuilder();

    private TckProcess(String label, Process process) {
        this.label = label;
        this.process = process;
        io.latchkey.spi.DaemonThreads.start("tck-process-out-" + process.pid(), this::readStdout);
        io.latchkey.spi.DaemonThreads.start("tck-process-err-" + process.pid(), this::readStderr);
    }

    /** Starts {@code main} in a new JVM on this JVM's class path, connected to {@code backend}. */
    static TckProcess start(ProcessBackend backend, Class<?> main, List<String> args) {
        return start(backend, main, args, Map.of());
    }

    /** As {@link #start(ProcessBackend, Class, List)}, with more environment (libfaketime's, for the clock rules). */
    static TckProcess start(ProcessBackend backend, Class<?> main, List<String> args, Map<String, String> env) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1"); // starts faster; the child's speed is not what is measured
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put(URI_ENV, backend.uri());
        builder.environment().put(SETTINGS_ENV, encode(backend.settings()));
        builder.environment().putAll(env);
        try {
            return new TckProcess(main.getSimpleName() + " " + String.join(" ", args), builder.start());
        } catch (IOException e) {
            throw new IllegalStateException("could not start a child JVM for " + main.getName(), e);
        }
    }

    /**
     * The child's process id.
     *
     * @return the pid
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Whether the child still runs.
     *
     * @return true while it runs
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Every stdout line so far, in order.
     *
     * @return the lines
     */
    public List<String> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /**
     * The lines so far that start with {@code prefix}.
     *
     * @param prefix the start of the lines wanted
     * @return the lines
     */
    public List<String> lines(String prefix) {
        return lines().stream().filter(l -> l.startsWith(prefix)).collect(Collectors.toList());
    }

    /**
     * Waits for the first line (counting from the child's start) that starts with {@code prefix}.
     *
     * @param prefix the start of the line wanted
     * @param timeout the longest wait
     * @return the line
     */
    public String awaitLine(String prefix, Duration timeout) {
        return awaitLine(l -> l.startsWith(prefix), "a line starting with '" + prefix + "'", timeout);
    }

    /**
     * Waits for the first line (counting from the child's start) that matches.
     *
     * @param matching the line wanted
     * @param what the line's description, for the timeout's message
     * @param timeout the longest wait
     * @return the line
     */
    public String awaitLine(Predicate<String> matching, String what, Duration timeout) {
        try {
            return Awaitility.await(label + " printed " + what)
                    .dontCatchUncaughtExceptions() // as Tck.await: another rule's thread must not fail this one
                    .atMost(timeout)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> lines().stream().filter(matching).findFirst().orElse(null), l -> l != null);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    label + " did not print " + what + " within " + timeout + (process.isAlive() ? "" : " (it exited)")
                            + "; its stdout: " + lines() + "; the end of its stderr: " + stderrTail(),
                    e);
        }
    }

    /**
     * The last few thousand characters the child wrote to stderr.
     *
     * @return the tail of stderr
     */
    public String stderrTail() {
        synchronized (stderr) {
            return stderr.toString();
        }
    }

    /** SIGSTOP: the child stops where it is (as in a long GC pause or a frozen VM), keeping its connections. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT: a paused child runs on from where it stopped. */
    public void resume() {
        signal("CONT");
    }

    /**
     * The child's threads, for a failure message: SIGQUIT makes a JVM print a thread dump on its stdout.
     *
     * @return the dump (at most a few thousand characters), or what was printed if it did not come within 5 s
     */
    public String threadDump() {
        int from = lines().size();
        signal("QUIT");
        try {
            awaitLine(l -> l.startsWith("JNI global refs") || l.contains("Heap"), "the end of a thread dump",
                    Duration.ofSeconds(5));
        } catch (AssertionError notComplete) {
            // what came is still worth showing
        }
        List<String> all = lines();
        String dump = String.join("\n", all.subList(Math.min(from, all.size()), all.size()));
        return dump.length() > 12_000 ? dump.substring(0, 12_000) + "..." : dump;
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new AssertionError("kill -" + signal + " " + process.pid() + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run kill -" + signal + " for " + label, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while sending SIG" + signal, e);
        }
    }

    /** SIGKILL: the child stops at once, releasing nothing, closing no session. Waits until it is gone. */
    public void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError(label + " (pid " + process.pid() + ") survived SIGKILL for 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            resume(); // a paused child would not read its closed stdin; SIGKILL works either way, this is for its pipes
            kill();
        }
    }

    @Override
    public String toString() {
        return "TckProcess[" + label + ", pid " + process.pid() + (process.isAlive() ? "" : ", exited") + "]";
    }

    private void readStdout() {
        try (BufferedReader in = reader(process.getInputStream())) {
            for (String line; (line = in.readLine()) != null; ) {
                synchronized (lines) {
                    lines.add(line);
                }
            }
        } catch (IOException e) {
            // the child is gone
        }
    }

    private void readStderr() {
        try (BufferedReader in = reader(process.getErrorStream())) {
            for (String line; (line = in.readLine()) != null; ) {
                synchronized (stderr) {
                    stderr.append(line).append('\n');
                    if (stderr.length() > STDERR_TAIL) {
                        stderr.delete(0, stderr.length() - STDERR_TAIL);
                    }
                }
            }
        } catch (IOException e) {
            // the child is gone
        }
    }

    private static BufferedReader reader(InputStream in) {
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    private static String encode(Map<String, String> settings) {
        return settings.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }
}
