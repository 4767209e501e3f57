package io.latchkey.tck;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.TestTag;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/*
 * A report a backend author can attach to a pull request: for every TCK class that ran (a subclass of
 * LockBackendTck), TEST-<class>.xml (JUnit XML, as CI servers read it) and <class>.md (both with the fully qualified name) (one page: the backend, the
 * verdict, each rule group's counts, every failure with its message, the skipped rules grouped by reason, and the
 * figures the rules measured). Registered through META-INF/services, so any JUnit Platform launcher that runs a TCK
 * class (Maven Surefire, Gradle, an IDE) writes it, to target/latchkey-tck unless the configuration parameter or
 * system property latchkey.tck.report names another directory, or "off".
 *
 * Concurrency: JUnit calls a listener from the threads that run the tests. Results are kept per class in a
 * concurrent map of synchronized lists; a class's files are written once, by the thread that finishes its
 * container, after every rule of that class has finished.
 */
/**
 * Writes a JUnit XML file and a one-page Markdown summary for each TCK class that runs; see the TCK README.
 */
public final class TckReport implements TestExecutionListener {
    /** The configuration parameter (or system property) naming the report directory; {@code off} writes nothing. */
    public static final String DIRECTORY_PARAMETER = "latchkey.tck.report";

    /** Where the report goes when nothing else is said: {@code target/latchkey-tck}, as Maven lays a module out. */
    public static final String DEFAULT_DIRECTORY = "target/latchkey-tck";

    private static final int MESSAGE_LIMIT = 600;

    private final Optional<Path> explicitDirectory;
    private volatile Path directory; // null: off
    private final Map<String, List<Rule>> rulesByClass = new ConcurrentHashMap<>();
    private final Map<String, Long> startedNanos = new ConcurrentHashMap<>();
    private final Map<String, Instant> classStarted = new ConcurrentHashMap<>();

    /** The listener JUnit loads: the directory comes from {@value #DIRECTORY_PARAMETER}. */
    public TckReport() {
        this.explicitDirectory = Optional.empty();
    }

    /**
     * A listener that writes to {@code directory}, whatever the configuration says.
     *
     * @param directory where the files go (created if missing)
     */
    public TckReport(Path directory) {
        this.explicitDirectory = Optional.of(directory);
    }

    /** One rule's outcome. */
    record Rule(
            String method,
            String displayName,
            List<String> groups,
            TestExecutionResult.Status status,
            String message,
            long millis,
            TckNotes.Note notes) {}

    @Override
    public void testPlanExecutionStarted(TestPlan plan) {
        directory = explicitDirectory.orElseGet(() -> {
            String configured = plan.getConfigurationParameters()
                    .get(DIRECTORY_PARAMETER)
                    .orElse(DEFAULT_DIRECTORY)
                    .trim();
            return configured.equalsIgnoreCase("off") || configured.isEmpty() ? null : Path.of(configured);
        });
    }

    @Override
    public void executionStarted(TestIdentifier test) {
        tckClassOf(test).ifPresent(c -> {
            if (test.isTest()) {
                startedNanos.put(test.getUniqueId(), System.nanoTime());
            } else {
                classStarted.putIfAbsent(c, Instant.now());
            }
        });
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        if (test.isTest()) {
            tckClassOf(test).ifPresent(c -> record(c, test, TestExecutionResult.Status.ABORTED, reason, 0));
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        Optional<String> tckClass = tckClassOf(test);
        if (tckClass.isEmpty()) {
            return;
        }
        if (test.isTest()) {
            Long started = startedNanos.remove(test.getUniqueId());
            long millis = started == null ? 0 : (System.nanoTime() - started) / 1_000_000;
            String message = result.getThrowable().map(TckReport::message).orElse("");
            record(tckClass.get(), test, result.getStatus(), message, millis);
        } else if (test.getSource().orElse(null) instanceof ClassSource) {
            write(tckClass.get(), test.getDisplayName(), result);
        }
    }

    private void record(String className, TestIdentifier test, TestExecutionResult.Status status, String m, long ms) {
        String method = ((MethodSource) test.getSource().orElseThrow()).getMethodName();
        List<String> groups = test.getTags().stream().map(TestTag::getName).sorted().toList();
        rulesByClass
                .computeIfAbsent(className, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                .add(new Rule(method, test.getDisplayName(), groups, status, m, ms, TckNotes.take(className, method)));
    }

    private void write(String className, String displayName, TestExecutionResult classResult) {
        Path dir = directory;
        List<Rule> rules = rulesByClass.remove(className);
        if (dir == null) {
            return;
        }
        List<Rule> copy = List.of(); // a class that failed in @BeforeAll ran no rule: its report says why
        if (rules != null) {
            synchronized (rules) {
                copy = List.copyOf(rules);
            }
        }
        String setupFailure = classResult.getStatus() == TestExecutionResult.Status.FAILED
                ? classResult.getThrowable().map(TckReport::message).orElse("(no message)")
                : null;
        Run run = new Run(
                className,
                displayName,
                copy,
                setupFailure,
                classStarted.getOrDefault(className, Instant.now()),
                Instant.now(),
                tckVersion());
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("TEST-" + className + ".xml"), TckReportFormats.junitXml(run));
            Files.writeString(dir.resolve(className + ".md"), TckReportFormats.markdown(run));
        } catch (IOException | RuntimeException e) {
            // a listener's exception is only logged by JUnit, and must not change the run's outcome: say it plainly
            System.err.println("Latchkey TCK: could not write the report of " + className + " to "
                    + dir.toAbsolutePath() + ": " + e);
        }
    }

    /** Everything one TCK class's report says. */
    record Run(
            String className,
            String displayName,
            List<Rule> rules,
            String setupFailure,
            Instant started,
            Instant finished,
            String tckVersion) {
        long count(TestExecutionResult.Status status) {
            return rules.stream().filter(r -> r.status() == status).count();
        }

        String backend() {
            return rules.stream()
                    .map(r -> r.notes().backend())
                    .filter(java.util.Objects::nonNull)
                    .findFirst()
                    .orElse("(no client was opened)");
        }

        long seconds() {
            return ChronoUnit.SECONDS.between(started, finished);
        }

        Map<String, long[]> byGroup() {
            Map<String, long[]> groups = new TreeMap<>();
            for (Rule r : rules) {
                for (String g : r.groups().isEmpty() ? List.of("(untagged)") : r.groups()) {
                    long[] c = groups.computeIfAbsent(g, k -> new long[3]);
                    c[r.status() == TestExecutionResult.Status.SUCCESSFUL
                                    ? 0
                                    : r.status() == TestExecutionResult.Status.FAILED ? 1 : 2]++;
                }
            }
            return groups;
        }
    }

    /** The TCK class of a rule or of a class container, if it is a {@link LockBackendTck}. */
    private static Optional<String> tckClassOf(TestIdentifier test) {
        TestSource source = test.getSource().orElse(null);
        String className = source instanceof MethodSource m
                ? m.getClassName()
                : source instanceof ClassSource c ? c.getClassName() : null;
        if (className == null) {
            return Optional.empty();
        }
        try {
            Class<?> c = Class.forName(className, false, Thread.currentThread().getContextClassLoader());
            return LockBackendTck.class.isAssignableFrom(c) ? Optional.of(className) : Optional.empty();
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.empty();
        }
    }

    private static String message(Throwable t) {
        String m = t.getMessage();
        String text = m == null || m.isBlank() ? t.getClass().getName() : m.replace("Assumption failed: ", "");
        return text.length() > MESSAGE_LIMIT ? text.substring(0, MESSAGE_LIMIT) + " ..." : text;
    }

    /** lock-tck's version, from the Maven metadata in its jar ({@code unknown} when run from classes). */
    private static String tckVersion() {
        try (InputStream in = TckReport.class.getResourceAsStream(
                "/META-INF/maven/io.latchkey/lock-tck/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    static String lowerStatus(TestExecutionResult.Status s) {
        return s == TestExecutionResult.Status.SUCCESSFUL
                ? "passed"
                : s == TestExecutionResult.Status.FAILED ? "FAILED" : "skipped";
    }

    static String locale(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
