package io.latchkey.cli;

import io.latchkey.servers.Binaries;
import io.latchkey.servers.Directories;
import io.latchkey.servers.ServerProcess;
import io.latchkey.servers.ServerStartException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the servers {@code bench} starts have in common: finding a binary (or saying which Debian package
 * brings it), temporary directories, the recipes' one-shot setup steps (initdb, mariadb-install-db), and registering a
 * started {@link ServerProcess} for a graceful stop. The recipes themselves are lock-servers'. Every resource is handed to the caller's
 * {@link BenchCleanup} as soon as it exists, so that Ctrl-C at any moment of a start leaves nothing behind.
 * Stateless; called on the main thread.
 */
final class LocalServers {
    private LocalServers() {}

    /** Thrown when a keyword cannot start its server; the message is one line for bench's table. */
    static final class NotStarted extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        NotStarted(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The executable {@code name} on PATH or in Debian's server directories, else a one-line error naming the
     * package to install and the URI form to use for a server the user runs.
     */
    static Path require(String name, String debianPackage, String uriExample) {
        return Binaries.find(name)
                .orElseThrow(() -> new NotStarted(
                        name + " is not installed (Debian: apt-get install " + debianPackage
                                + "); or give the URI of a server you run: " + uriExample,
                        null));
    }

    /** A new temporary directory, deleted by {@code cleanup}. */
    static Path temporaryDirectory(Path parent, String prefix, BenchCleanup cleanup) throws IOException {
        Path dir = parent == null ? Files.createTempDirectory(prefix) : Files.createTempDirectory(parent, prefix);
        cleanup.add(() -> Directories.deleteRecursively(dir));
        return dir;
    }

    /**
     * Runs a recipe's setup step ({@code initdb}, {@code mariadb-install-db}), whose process {@code cleanup} kills
     * if it is still running; a failure becomes {@link NotStarted} with the step's one-line message.
     */
    static void setup(SetupStep step, BenchCleanup cleanup) throws InterruptedException {
        try {
            step.run(p -> cleanup.add(() -> {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }));
        } catch (IOException e) {
            throw new NotStarted(e.getMessage(), e);
        }
    }

    /** A recipe's setup step, told about its process as soon as it exists. */
    interface SetupStep {
        void run(Consumer<Process> started) throws IOException, InterruptedException;
    }

    /**
     * Registers {@code server} for a graceful stop (SIGTERM, so that databases remove their shared memory and
     * files) followed by {@link ServerProcess#close()}, then starts it; a failed start becomes one line with
     * the server's last log line.
     */
    static void start(ServerProcess server, BenchCleanup cleanup) {
        cleanup.add(() -> {
            try {
                server.stop();
            } finally {
                server.close();
            }
        });
        try {
            server.start();
        } catch (ServerStartException e) {
            List<String> tail = e.logTail();
            String first = String.valueOf(e.getMessage()).lines().findFirst().orElse("did not start");
            throw new NotStarted(
                    first
                            + (tail.isEmpty()
                                    ? ""
                                    : "; last log line: "
                                            + tail.get(tail.size() - 1).trim()),
                    e);
        }
    }
}
