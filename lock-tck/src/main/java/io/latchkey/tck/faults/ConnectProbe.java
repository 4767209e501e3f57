package io.latchkey.tck.faults;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Connects to a backend in a separate JVM, as a user's application would, with SLF4J's simple logger at a
 * chosen level (java.util.logging untouched), and reports how long {@code Latchkey.connect} took, the error's
 * message and causes, and every line the JVM wrote to stderr, including what client threads log for
 * {@code lingerMillis} after the failure. A separate JVM, because a test JVM's logging is configured for tests
 * and SLF4J fixes its levels when the first logger is made.
 *
 * <p>The test's class path is the probe's class path, so the backend under test and slf4j-simple must be on it.
 */
public final class ConnectProbe {

    /** What the probe saw. {@code error} is the exception's message, or a note that none was thrown. */
    public record Result(String error, long elapsedMillis, List<String> stdout, List<String> stderr) {}

    private ConnectProbe() {}

    /**
     * Runs the probe JVM.
     *
     *
     * @param level        SLF4J simple logger's level for every logger ({@code warn} is a command-line
     *                     user's, {@code debug} shows everything)
     * @param uri          the backend URI
     * @param lingerMillis how long the JVM stays alive after connecting or failing
     * @param settings     settings as {@code key=value}
     * @return what the probe saw
     */
    public static Result run(String level, String uri, long lingerMillis, String... settings) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd =
                new ArrayList<>(List.of(java.toString(), "-Dorg.slf4j.simpleLogger.defaultLogLevel=" + level));
        // the test class path's simplelogger.properties may quieten single loggers: the probe's level is for all
        for (String logger : loggersConfiguredOnTheClassPath()) {
            cmd.add("-D" + logger + "=" + level);
        }
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                ConnectProbe.class.getName(),
                uri,
                Long.toString(lingerMillis)));
        cmd.addAll(List.of(settings));
        try {
            Process process = new ProcessBuilder(cmd).start();
            process.getOutputStream().close();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread drain = new Thread(
                    () -> {
                        try {
                            process.getErrorStream().transferTo(err);
                        } catch (IOException ended) {
                            // the process ended
                        }
                    },
                    "connect-probe-stderr");
            drain.start();
            process.getInputStream().transferTo(out);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the connect probe for " + uri + " did not end within 60 s");
            }
            drain.join(10_000);
            List<String> stdout = out.toString(StandardCharsets.UTF_8).lines().toList();
            List<String> stderr = err.toString(StandardCharsets.UTF_8)
                    .lines()
                    .filter(l -> !l.isBlank())
                    .toList();
            if (!stdout.contains("DONE")) {
                throw new AssertionError(
                        "the connect probe for " + uri + " did not finish; stdout " + stdout + ", stderr " + stderr);
            }
            String error = stdout.stream()
                    .filter(l -> l.startsWith("ERROR "))
                    .map(l -> l.substring(6))
                    .findFirst()
                    .orElse("(no error; stdout: " + stdout + ", stderr: " + stderr + ")");
            long elapsed = stdout.stream()
                    .filter(l -> l.startsWith("ELAPSED "))
                    .mapToLong(l -> Long.parseLong(l.substring(8)))
                    .findFirst()
                    .orElse(-1);
            System.out.printf("probe %s: %d ms, %s%n  stderr: %d lines%n", uri, elapsed, error, stderr.size());
            stderr.stream().limit(40).forEach(l -> System.out.println("  | " + l));
            return new Result(error, elapsed, stdout, stderr);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the connect probe JVM", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the connect probe", e);
        }
    }

    private static List<String> loggersConfiguredOnTheClassPath() {
        Properties p = new Properties();
        try (InputStream in = ConnectProbe.class.getClassLoader().getResourceAsStream("simplelogger.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException unreadable) {
            return List.of();
        }
        return p.stringPropertyNames().stream()
                .filter(k -> k.startsWith("org.slf4j.simpleLogger.log."))
                .sorted()
                .toList();
    }

    /**
     * The probe JVM. Arguments: URI, linger in ms, then settings as {@code key=value}.
     *
     * @param args the URI, the linger in milliseconds, then settings as {@code key=value}
     * @throws Exception if the probe itself fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        long start = System.nanoTime();
        try (LockClient client = Latchkey.connect(URI.create(args[0]), settings)) {
            System.out.println("CONNECTED " + client.backend());
            try (LockHandle h = client.lock("probe/lock").acquire(Duration.ofSeconds(10))) {
                System.out.println("HELD " + h + " " + client.inspect("probe/lock") + " " + client.list("probe/"));
            }
        } catch (RuntimeException e) {
            System.out.println("ELAPSED " + (System.nanoTime() - start) / 1_000_000);
            System.out.println("ERROR " + e.getMessage());
            System.out.println("FIRSTLINE "
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                System.out.println("CAUSE " + c);
            }
        }
        System.out.flush();
        Thread.sleep(Long.parseLong(args[1]));
        System.out.println("DONE");
    }
}
