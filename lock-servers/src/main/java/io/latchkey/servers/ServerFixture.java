package io.latchkey.servers;

import io.latchkey.spi.Redaction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses where a test's server comes from, in the order of docs/design.md section 7: an endpoint named by an
 * environment variable, a binary on {@code PATH}, Testcontainers when a Docker engine is reachable, an
 * embedded server. If none works, {@link #acquire()} throws what its {@link UnavailablePolicy} makes of a
 * {@link ServerUnavailableException} that says why each option was unavailable: by default that exception
 * itself; the TCK's policy skips the test instead, or fails it when servers are required on CI.
 *
 * <pre>{@code
 * ServerFixture redis = ServerFixture.named("redis")
 *         .fromEnv("LATCHKEY_REDIS_URI", Endpoint::parseUri)
 *         .fromPath("redis-server", "redis-server", binary -> startRedis(binary))
 *         .fromTestcontainers(() -> startRedisContainer())
 *         .embedded(() -> startEmbeddedRedis());
 * try (RunningServer server = redis.acquire()) { ... }
 * }</pre>
 *
 * <p>Design: options must be declared in that order (out-of-order declarations are rejected, so the code
 * reads the way it runs). Configure a fixture on one thread; after that {@link #acquire()} may be called
 * from any thread, and each call starts its own server. The environment and the Docker probe are
 * injectable so that the selection itself can be tested without touching the real environment. A binary
 * that is found but fails to start is reported and the next option is tried; an environment variable that
 * is set but cannot be parsed fails at once, since someone asked for that server explicitly.
 */
public final class ServerFixture {

    private static final Logger LOG = LoggerFactory.getLogger(ServerFixture.class);

    private final String serverName;
    private final List<Option> options = new ArrayList<>();
    private Function<String, String> environment = System::getenv;
    private Supplier<DockerProbe.Status> dockerProbe = DockerProbe::check;
    private UnavailablePolicy policy = UnavailablePolicy.THROW;

    private ServerFixture(String serverName) {
        this.serverName = serverName;
    }

    /**
     * Starts declaring how to get a server.
     *
     * @param serverName what the server is, for messages, e.g. "redis" or "PostgreSQL"
     * @return a fixture with no options yet
     */
    public static ServerFixture named(String serverName) {
        if (serverName == null || serverName.isBlank()) {
            throw new IllegalArgumentException(
                    "server name must be a non-blank text such as 'redis', was '" + serverName + "'");
        }
        return new ServerFixture(serverName);
    }

    /**
     * Replaces the environment lookup (default {@link System#getenv(String)}); used for the endpoint
     * variables, {@code PATH} and whatever the {@link UnavailablePolicy} looks up.
     *
     * @param lookup variable name to value, {@code null} when unset
     * @return this fixture
     */
    public ServerFixture withEnvironment(Function<String, String> lookup) {
        this.environment = Objects.requireNonNull(lookup, "lookup");
        return this;
    }

    /**
     * Chooses what {@link #acquire()} and {@link RunningServer#requireFaultInjection()} throw when they cannot
     * give what was asked (default {@link UnavailablePolicy#THROW}).
     *
     * @param unavailable the policy, e.g. the TCK's skip-or-fail
     * @return this fixture
     */
    public ServerFixture whenUnavailable(UnavailablePolicy unavailable) {
        this.policy = Objects.requireNonNull(unavailable, "unavailable");
        return this;
    }

    /**
     * Replaces the Docker check (default {@link DockerProbe#check()}).
     *
     * @param probe answers whether Docker is usable
     * @return this fixture
     */
    public ServerFixture withDockerProbe(Supplier<DockerProbe.Status> probe) {
        this.dockerProbe = Objects.requireNonNull(probe, "probe");
        return this;
    }

    /**
     * Option 1: use the server named by an environment variable, if it is set.
     *
     * @param variable e.g. {@code LATCHKEY_REDIS_URI}
     * @param parser turns the value into an endpoint, e.g. {@link Endpoint#parseUri(String)}; throws
     *     {@link IllegalArgumentException} for a bad value
     * @return this fixture
     */
    public ServerFixture fromEnv(String variable, Function<String, Endpoint> parser) {
        if (variable == null || variable.isBlank() || variable.contains("=")) {
            throw new IllegalArgumentException(
                    "environment variable name must be non-blank without '=', was '" + variable + "'");
        }
        return add(new EnvOption(variable, Objects.requireNonNull(parser, "parser")));
    }

    /**
     * Option 2: launch a binary found on {@code PATH} or in {@link Binaries#EXTRA_DIRECTORIES}.
     *
     * @param binary the executable's file name, e.g. {@code redis-server}
     * @param launcher starts it
     * @return this fixture
     */
    public ServerFixture fromPath(String binary, BinaryLauncher launcher) {
        return fromPath(binary, null, launcher);
    }

    /**
     * Option 2: launch a binary found on {@code PATH} or in {@link Binaries#EXTRA_DIRECTORIES}.
     *
     * @param binary the executable's file name, e.g. {@code redis-server}
     * @param debianPackage the Debian package that provides it, suggested in the skip message, or {@code null}
     * @param launcher starts it
     * @return this fixture
     */
    public ServerFixture fromPath(String binary, String debianPackage, BinaryLauncher launcher) {
        Binaries.requireBareName(binary);
        if (debianPackage != null && !debianPackage.matches("[a-z0-9][a-z0-9+.-]+")) {
            throw new IllegalArgumentException("Debian package name must be lower-case letters, digits, '+', '-', "
                    + "'.', e.g. 'redis-server', or null; was '" + debianPackage + "'");
        }
        return add(new PathOption(binary, debianPackage, Objects.requireNonNull(launcher, "launcher")));
    }

    /**
     * Option 3: start a container, tried only when a Docker engine is reachable.
     *
     * @param launcher starts the container (may use Testcontainers classes)
     * @return this fixture
     */
    public ServerFixture fromTestcontainers(ServerLauncher launcher) {
        return add(new ContainerOption(Objects.requireNonNull(launcher, "launcher")));
    }

    /**
     * Option 4: start a server inside this JVM.
     *
     * @param launcher starts it (may use optional classes; a missing class makes this option unavailable)
     * @return this fixture
     */
    public ServerFixture embedded(ServerLauncher launcher) {
        return add(new EmbeddedOption(Objects.requireNonNull(launcher, "launcher")));
    }

    private ServerFixture add(Option option) {
        if (!options.isEmpty()) {
            ServerOrigin last = options.get(options.size() - 1).origin();
            if (option.origin().ordinal() < last.ordinal()) {
                throw new IllegalStateException("declare " + serverName + "'s options in the order they are tried "
                        + "(environment, PATH, Testcontainers, embedded): "
                        + option.origin().label()
                        + " cannot come after " + last.label());
            }
        }
        options.add(option);
        return this;
    }

    /**
     * Returns a ready server from the first option that works.
     *
     * @return the server; the caller closes it
     * @throws ServerUnavailableException if no option works, or what the {@link UnavailablePolicy} makes of it
     * @throws IllegalArgumentException if an endpoint variable is set to something that cannot be parsed
     * @throws IllegalStateException if no option was declared
     */
    public RunningServer acquire() {
        if (options.isEmpty()) {
            throw new IllegalStateException("ServerFixture '" + serverName + "' declares no options; add fromEnv, "
                    + "fromPath, fromTestcontainers or embedded before acquire()");
        }
        List<String> reasons = new ArrayList<>();
        List<String> hints = new ArrayList<>();
        List<Throwable> launchFailures = new ArrayList<>();
        for (ServerOrigin origin : List.of(
                ServerOrigin.ENVIRONMENT,
                ServerOrigin.PATH_BINARY,
                ServerOrigin.TESTCONTAINERS,
                ServerOrigin.EMBEDDED)) {
            List<Option> ofOrigin =
                    options.stream().filter(o -> o.origin() == origin).collect(Collectors.toList());
            if (ofOrigin.isEmpty()) {
                reasons.add(origin.label() + ": not declared for " + serverName);
            }
            for (Option option : ofOrigin) {
                Attempt attempt = option.attempt(this);
                if (attempt.server != null) {
                    LOG.info("using {} ({})", attempt.server.description(), origin.label());
                    return attempt.server.withPolicy(policy);
                }
                reasons.add(attempt.reason);
                if (attempt.hint != null) {
                    hints.add(attempt.hint);
                }
                if (attempt.failure != null) {
                    launchFailures.add(attempt.failure);
                }
            }
        }
        throw unavailable(reasons, hints, launchFailures);
    }

    private RuntimeException unavailable(List<String> reasons, List<String> hints, List<Throwable> launchFailures) {
        return Objects.requireNonNull(
                policy.noServer(
                        new ServerUnavailableException(serverName, reasons, hints, launchFailures), environment),
                "the UnavailablePolicy returned no exception");
    }

    String serverName() {
        return serverName;
    }

    Function<String, String> environment() {
        return environment;
    }

    Supplier<DockerProbe.Status> dockerProbe() {
        return dockerProbe;
    }

    /** The outcome of trying one option: a server, or why not (and how a developer could fix that). */
    static final class Attempt {
        final RunningServer server;
        final String reason;
        final String hint;
        final Throwable failure;

        private Attempt(RunningServer server, String reason, String hint, Throwable failure) {
            this.server = server;
            this.reason = reason;
            this.hint = hint;
            this.failure = failure;
        }

        static Attempt success(RunningServer server) {
            return new Attempt(server, null, null, null);
        }

        static Attempt unavailable(String reason, String hint) {
            return new Attempt(null, reason, hint, null);
        }

        static Attempt failed(String reason, Throwable failure) {
            return new Attempt(null, reason, null, failure);
        }
    }

    /** One declared way of getting a server. */
    private interface Option {
        ServerOrigin origin();

        Attempt attempt(ServerFixture fixture);
    }

    private record EnvOption(String variable, Function<String, Endpoint> parser) implements Option {
        @Override
        public ServerOrigin origin() {
            return ServerOrigin.ENVIRONMENT;
        }

        @Override
        public Attempt attempt(ServerFixture fixture) {
            String value = fixture.environment().apply(variable);
            if (value == null || value.isBlank()) {
                return Attempt.unavailable(
                        "environment variable " + variable + ": " + (value == null ? "not set" : "set but empty"),
                        "set " + variable + " to the endpoint of a running " + fixture.serverName() + " server");
            }
            Endpoint endpoint;
            try {
                endpoint = Objects.requireNonNull(parser.apply(value.trim()), "parser returned null");
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        variable + "='" + Redaction.redact(value) + "' is not a valid " + fixture.serverName()
                                + " endpoint: "
                                + e.getMessage(),
                        e);
            }
            return Attempt.success(RunningServer.external(endpoint)
                    .withOrigin(
                            ServerOrigin.ENVIRONMENT,
                            fixture.serverName() + " at " + endpoint + " (from " + variable + ")"));
        }
    }

    private record PathOption(String binary, String debianPackage, BinaryLauncher launcher) implements Option {
        @Override
        public ServerOrigin origin() {
            return ServerOrigin.PATH_BINARY;
        }

        @Override
        public Attempt attempt(ServerFixture fixture) {
            Binaries binaries = Binaries.forPath(fixture.environment().apply("PATH"));
            Optional<Path> found = binaries.locate(binary);
            if (found.isEmpty()) {
                String install = debianPackage == null
                        ? "install " + binary
                        : "install " + binary + " (Debian/Ubuntu: apt-get install " + debianPackage + ")";
                return Attempt.unavailable(
                        "binary " + binary + ": not found on PATH or in the usual server "
                                + "directories (searched "
                                + binaries.searchedDirectories().stream()
                                        .map(Path::toString)
                                        .collect(Collectors.joining(":"))
                                + ")"
                                + (debianPackage == null ? "" : "; Debian package: " + debianPackage),
                        install);
            }
            try {
                RunningServer server = Objects.requireNonNull(launcher.launch(found.get()), "launcher returned null");
                return Attempt.success(server.withOrigin(
                        ServerOrigin.PATH_BINARY,
                        fixture.serverName() + " from " + found.get() + " on " + server.endpoint()));
            } catch (Exception | LinkageError e) {
                LOG.warn("{} was found at {} but did not start; trying the next option", binary, found.get(), e);
                return Attempt.failed(
                        "binary " + binary + ": found at " + found.get() + " but it did not start: " + e.getMessage(),
                        e);
            }
        }
    }

    private record ContainerOption(ServerLauncher launcher) implements Option {
        @Override
        public ServerOrigin origin() {
            return ServerOrigin.TESTCONTAINERS;
        }

        @Override
        public Attempt attempt(ServerFixture fixture) {
            DockerProbe.Status docker = fixture.dockerProbe().get();
            if (!docker.available()) {
                return Attempt.unavailable("Testcontainers: " + docker.detail(), "start a Docker engine");
            }
            return launch(fixture, launcher, ServerOrigin.TESTCONTAINERS, "Testcontainers");
        }
    }

    private record EmbeddedOption(ServerLauncher launcher) implements Option {
        @Override
        public ServerOrigin origin() {
            return ServerOrigin.EMBEDDED;
        }

        @Override
        public Attempt attempt(ServerFixture fixture) {
            return launch(fixture, launcher, ServerOrigin.EMBEDDED, "embedded server");
        }
    }

    private static Attempt launch(ServerFixture fixture, ServerLauncher launcher, ServerOrigin origin, String what) {
        try {
            RunningServer server = Objects.requireNonNull(launcher.launch(), "launcher returned null");
            return Attempt.success(server.withOrigin(
                    origin, fixture.serverName() + " (" + origin.label() + ") on " + server.endpoint()));
        } catch (LinkageError e) {
            return Attempt.unavailable(what + ": classes it needs are not on the classpath (" + e + ")", null);
        } catch (Exception e) {
            LOG.warn("{} for {} did not start; trying the next option", what, fixture.serverName(), e);
            return Attempt.failed(what + ": did not start: " + e.getMessage(), e);
        }
    }
}
