package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real shaded {@code latchkey.jar} as separate processes, as a user would, each with a private
 * home directory (so the embedded H2 default lives in a temporary directory) and with output captured in
 * files. Signals that the test runner's own parent may have set to "ignored" (background jobs ignore
 * SIGINT) are reset with {@code env --default-signal} where available, so that signal tests test latchkey.
 *
 * <p>One instance per test class or test; processes it starts are destroyed by {@link #close()}.
 */
final class LatchkeyJar implements AutoCloseable {
    /** The jar under test; LATCHKEY_TEST_JAR runs the tests against another build (e.g. to see them fail before a fix). */
    static final Path JAR = Paths.get(Optional.ofNullable(System.getenv("LATCHKEY_TEST_JAR"))
                    .orElse(System.getProperty("latchkey.jar", "target/latchkey.jar")))
            .toAbsolutePath();

    private static final String JAVA =
            Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    private static final boolean ENV_RESETS_SIGNALS = envResetsSignals();

    final Path home;
    private final Path jar;
    private final Path logs;
    private final List<Running> started = new ArrayList<>();
    private int sequence;

    LatchkeyJar(Path temp) {
        this(temp, JAR);
    }

    /** Runs another jar (e.g. a copy of latchkey.jar without a JDBC driver) the same way. */
    LatchkeyJar(Path temp, Path jar) {
        assertThat(JAR)
                .as("the shaded jar (run the *IT tests with 'mvn verify', after 'package')")
                .isRegularFile();
        this.jar = jar;
        try {
            this.home = Files.createDirectories(temp.resolve("home"));
            this.logs = Files.createDirectories(temp.resolve("logs"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts {@code latchkey ARGS...}. */
    Running start(String... args) {
        return start(Map.of(), List.of(), args);
    }

    /**
     * Starts {@code latchkey ARGS...} with extra environment variables (replacing inherited ones) and extra
     * JVM options (e.g. {@code -Djava.io.tmpdir=...}).
     */
    Running start(Map<String, String> environment, List<String> jvmOptions, String... args) {
        List<String> cmd = new ArrayList<>();
        if (ENV_RESETS_SIGNALS) {
            cmd.addAll(List.of("env", "--default-signal=INT,TERM,HUP"));
        }
        cmd.addAll(List.of(JAVA, "-Duser.home=" + home, "-XX:TieredStopAtLevel=1"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", jar.toString()));
        cmd.addAll(List.of(args));
        return start(cmd, String.join(" ", args), environment);
    }

    private Running start(List<String> cmd, String description) {
        return start(cmd, description, Map.of());
    }

    private Running start(List<String> cmd, String description, Map<String, String> environment) {
        int n = ++sequence;
        Path out = logs.resolve(n + ".out");
        Path err = logs.resolve(n + ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().remove("LATCHKEY_BACKEND");
        pb.environment().put("HOME", home.toString());
        // the embedded default's server stops by itself soon after the test (close() stops it at once)
        pb.environment().put(EmbeddedServer.IDLE_ENV, "20s");
        pb.environment().putAll(environment);
        try {
            Running r = new Running(pb.start(), out, err, description);
            started.add(r);
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code sh -c "java -jar latchkey.jar ARGS"}, for arguments only a shell can produce (raw bytes). */
    Result runInShell(String shellArgs) {
        return start(
                        List.of(
                                "sh",
                                "-c",
                                "exec \"$0\" -Duser.home=\"$1\" -jar \"$2\" " + shellArgs,
                                JAVA,
                                home.toString(),
                                jar.toString()),
                        shellArgs)
                .await(Duration.ofMinutes(2));
    }

    /** Runs {@code latchkey ARGS...} to completion (at most two minutes). */
    Result run(String... args) {
        return start(args).await(Duration.ofMinutes(2));
    }

    /** The embedded default's server process, if one runs for this home directory. */
    Optional<ProcessHandle> embeddedServer() {
        Path file = home.resolve(".latchkey/server.properties");
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (IOException e) {
            return Optional.empty();
        }
        return ProcessHandle.of(Long.parseLong(p.getProperty("pid", "-1")));
    }

    @Override
    public void close() {
        for (Running r : started) {
            r.process.descendants().forEach(ProcessHandle::destroyForcibly);
            r.process.destroyForcibly();
        }
        embeddedServer().ifPresent(server -> {
            server.destroy();
            server.onExit()
                    .orTimeout(10, TimeUnit.SECONDS)
                    .exceptionally(e -> {
                        server.destroyForcibly();
                        return server;
                    })
                    .join();
        });
    }

    private static boolean envResetsSignals() {
        try {
            Process p = new ProcessBuilder("env", "--default-signal=INT", "true")
                    .redirectErrorStream(true)
                    .start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A started latchkey process. */
    static final class Running {
        final Process process;
        private final Path out;
        private final Path err;
        private final String args;

        Running(Process process, Path out, Path err, String args) {
            this.process = process;
            this.out = out;
            this.err = err;
            this.args = args;
        }

        String stdout() {
            return read(out);
        }

        String stderr() {
            return read(err);
        }

        /** Sends a signal by name (TERM, INT, HUP) to the latchkey JVM. */
        void signal(String name) {
            try {
                Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(process.pid()))
                        .inheritIO()
                        .start();
                assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
                assertThat(kill.exitValue()).as("kill -s " + name).isZero();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        /**
         * SIGKILL to the latchkey JVM and, first, to the commands it started: a killed latchkey cannot stop its
         * children itself, and orphans would keep running without the lock.
         */
        void killTree() {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            try {
                assertThat(process.waitFor(30, TimeUnit.SECONDS))
                        .as("SIGKILL'd " + args)
                        .isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        Result await(Duration limit) {
            try {
                if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    throw new AssertionError("latchkey " + args + " did not finish within " + limit + "\nstdout: "
                            + stdout() + "\nstderr: " + stderr());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            return new Result(process.exitValue(), stdout(), stderr(), args);
        }

        private static String read(Path p) {
            try {
                return Files.readString(p, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }
    }

    /** What a finished latchkey process printed and returned. */
    record Result(int exit, String stdout, String stderr, String args) {
        @Override
        public String toString() {
            return "latchkey " + args + " -> exit " + exit + "\n--- stdout:\n" + stdout + "--- stderr:\n" + stderr;
        }
    }
}
