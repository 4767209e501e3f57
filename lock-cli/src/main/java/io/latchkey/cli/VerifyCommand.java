package io.latchkey.cli;

import io.latchkey.Capability;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.Redaction;
import io.latchkey.tck.TckSettings;
import java.io.File;
import java.io.PrintWriter;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code latchkey verify}: runs the Latchkey TCK against the backend a URI names, through the JUnit
 * Platform launcher, and prints one line per guarantee. Runs the TCK on the main thread (the TCK starts
 * its own threads); one verification per JVM.
 */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs the Latchkey TCK against the backend --backend names (your own provider too: put its "
                    + "jar on --classpath) and prints one line per guarantee: passed, FAILED (reason) or skipped (reason).",
            "Rules that need a fault hook (outage, session kill, server restart) are skipped: those are proven by "
                    + "each backend's own test suite, which can control its server.",
            ""
        },
        footerHeading = "%nExit status:%n",
        footer = {
            "  0 no rule failed, 1 a rule failed, 64 usage error, 69 backend unavailable",
            "",
            "Example: latchkey verify --backend redis://localhost:6379 --group exclusion,fencing"
        })
public final class VerifyCommand implements Callable<Integer> {
    static final List<String> GROUPS = List.of(
            "exclusion",
            "fencing",
            "lease",
            "ownership",
            "loss",
            "waiting",
            "idempotency",
            "inspection",
            "namespace",
            "validation",
            "capabilities",
            "elector",
            "exclusive-tasks",
            "multi-lock",
            "distribution",
            "semaphore",
            "read-write");

    @Spec
    CommandSpec spec;

    @Mixin
    BackendOptions backend;

    @Option(
            names = {"-G", "--group"},
            split = ",",
            paramLabel = "GROUP",
            description =
                    "Only these rule groups (comma-separated): exclusion, fencing, lease, ownership, loss, waiting, "
                            + "idempotency, inspection, namespace, validation, capabilities, elector, exclusive-tasks, multi-lock, "
                            + "distribution, semaphore, read-write. Default: all.")
    List<String> groups = new ArrayList<>();

    @Option(
            names = "--classpath",
            paramLabel = "PATH",
            split = ":",
            splitSynopsisLabel = ":",
            description =
                    "Jars or directories holding your own LockBackendProvider (META-INF/services), separated by ':'.")
    List<File> classpath = new ArrayList<>();

    @Option(
            names = "--short-lease",
            paramLabel = "DURATION",
            defaultValue = "1s",
            converter = DurationConverter.class,
            description =
                    "Lease of the rules that wait for expiry; the store's smallest lease (default: ${DEFAULT-VALUE}).")
    Duration shortLease;

    @Option(
            names = "--slack",
            paramLabel = "DURATION",
            defaultValue = "2s",
            converter = DurationConverter.class,
            description =
                    "How late an expiry or a timeout may be reported (default: ${DEFAULT-VALUE}); raise it for a slow store.")
    Duration slack;

    @Option(
            names = "--report",
            paramLabel = "DIR",
            description = "Also write the TCK report there: TEST-<class>.xml (JUnit XML) and a one-page Markdown"
                    + " summary, to attach to a pull request.")
    File report;

    @Override
    public Integer call() {
        for (String g : groups) {
            if (!GROUPS.contains(g.toLowerCase(Locale.ROOT))) {
                throw new ParameterException(
                        spec.commandLine(),
                        "unknown rule group '" + g + "'; the groups are " + String.join(", ", GROUPS));
            }
        }
        TckSettings tck = TckSettings.defaults().toBuilder()
                .shortLease(shortLease)
                .slack(slack)
                .build();
        ClassLoader loader = loader();
        Thread.currentThread().setContextClassLoader(loader);
        EmbeddedServer.Endpoint endpoint = backend.isEmbeddedDefault()
                ? backend.resolve()
                : new EmbeddedServer.Endpoint(BackendUris.check(backend.uri(), loader), backend.settings());
        String uri = endpoint.uri();
        if (uri.equals("mem:") || uri.equals("mem:/")) {
            // mem: alone is a new private store per client; the TCK needs every client on one store
            uri = "mem:verify-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        }
        PrintWriter out = spec.commandLine().getOut();
        Map<String, String> settings = SessionPool.sized(uri, endpoint.settings(), out);
        UriBackendTck.Target target = new UriBackendTck.Target(uri, settings, loader, tck);
        Set<Capability> capabilities;
        String description;
        // fails fast (69) if the store is down, 64 if no JDBC driver accepts the URL
        try (LockBackend probe =
                BackendUris.explainingMissingDriver(uri, loader, () -> UriBackendTck.connect(target))) {
            capabilities = probe.capabilities();
            description = probe.description();
        }
        out.println("Latchkey TCK against " + description + " (claims "
                + (capabilities.isEmpty()
                        ? "no capabilities"
                        : new TreeSet<>(capabilities.stream().map(Enum::name).toList()))
                + ")");
        out.flush();
        UriBackendTck.target(target);
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(UriBackendTck.class))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
                .configurationParameter("junit.platform.output.capture.stdout", "false")
                // lock-tck's TckReport listener is loaded with the launcher: it writes files only when asked
                .configurationParameter(
                        io.latchkey.tck.TckReport.DIRECTORY_PARAMETER, report == null ? "off" : report.getPath());
        if (!groups.isEmpty()) {
            request.filters(TagFilter.includeTags(groups.stream()
                    .map(g -> g.toLowerCase(Locale.ROOT))
                    .distinct()
                    .toList()));
        }
        LauncherDiscoveryRequest built = request.build();
        if (report != null) {
            try {
                java.nio.file.Files.createDirectories(report.toPath());
            } catch (java.io.IOException | RuntimeException e) {
                throw new ParameterException(
                        spec.commandLine(), "--report directory '" + report + "' cannot be created: " + e.getMessage());
            }
        }
        TckProgress progress = new TckProgress(out);
        long start = System.nanoTime();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(built, progress);
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf(
                Locale.ROOT,
                "%d passed, %d failed, %d skipped in %.1fs on %s%n",
                progress.passed.get(),
                progress.failed.get(),
                progress.skipped.get(),
                seconds,
                Redaction.redact(uri));
        if (report != null) {
            java.nio.file.Path page = report.toPath().resolve(UriBackendTck.class.getName() + ".md");
            out.println(java.nio.file.Files.exists(page)
                    ? "TCK report: " + page.toAbsolutePath() + " and TEST-" + UriBackendTck.class.getName() + ".xml"
                    : "no TCK report was written to " + report.toPath().toAbsolutePath() + " (see standard error)");
        }
        if (progress.passed.get() + progress.failed.get() + progress.skipped.get() == 0) {
            out.println("no rule ran: check --group");
            return ExitCodes.NEGATIVE;
        }
        return progress.failed.get() == 0 ? ExitCodes.OK : ExitCodes.NEGATIVE;
    }

    private ClassLoader loader() {
        ClassLoader parent = VerifyCommand.class.getClassLoader();
        if (classpath.isEmpty()) {
            return parent;
        }
        List<URL> urls = new ArrayList<>();
        for (File f : classpath) {
            if (!f.exists()) {
                throw new ParameterException(
                        spec.commandLine(), "--classpath entry '" + f + "' does not exist; give jars or directories");
            }
            try {
                urls.add(f.toURI().toURL());
            } catch (MalformedURLException e) {
                throw new ParameterException(spec.commandLine(), "--classpath entry '" + f + "' is not a valid path");
            }
        }
        return new URLClassLoader(urls.toArray(URL[]::new), parent);
    }
}
