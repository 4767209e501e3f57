package io.latchkey.servers;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies a server's merged stdout/stderr into a log file and keeps the last lines in memory for failure
 * messages.
 *
 * <p>Design: one daemon "pump" thread per process run reads the pipe line by line; it is the only writer of
 * the file while it runs (markers are written between runs, after the previous pump has finished). Each
 * line is flushed so that readiness checks reading the file see it at once. The in-memory tail is a ring
 * guarded by a lock that is held only for the deque operation, never for I/O. If the pipe stays open
 * because a stray grandchild holds it, the pump simply outlives the run as a daemon thread.
 */
final class LogCapture {

    private static final Logger LOG = LoggerFactory.getLogger(LogCapture.class);

    private final Path file;
    private final int tailCapacity;
    private final ReentrantLock tailLock = new ReentrantLock();
    private final ArrayDeque<String> tail;
    private volatile Thread pump;

    /**
     * A capture whose file is {@code server.log} in a fresh temporary directory (the owner deletes the
     * directory, {@code file().getParent()}, on close).
     */
    static LogCapture inTemporaryDirectory(String serverName, int tailCapacity) {
        try {
            Path directory = Files.createTempDirectory("latchkey-server-");
            return new LogCapture(directory.resolve("server.log"), tailCapacity);
        } catch (IOException e) {
            throw new ServerStartException(
                    "could not create a temporary directory for the log of " + serverName + ": " + e,
                    null,
                    List.of(),
                    Duration.ZERO,
                    e);
        }
    }

    LogCapture(Path file, int tailCapacity) {
        this.file = file;
        this.tailCapacity = tailCapacity;
        this.tail = new ArrayDeque<>(tailCapacity);
    }

    Path file() {
        return file;
    }

    /** Appends a line of our own (not the server's), e.g. a start marker; call only while no pump runs. */
    void writeMarker(String line) {
        try (BufferedWriter writer = Files.newBufferedWriter(
                file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            writer.write(line);
            writer.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException("could not write to server log " + file, e);
        }
        remember(line);
    }

    /** Current size of the log file, so a run can read only what it wrote. */
    long size() {
        try {
            return Files.exists(file) ? Files.size(file) : 0L;
        } catch (IOException e) {
            throw new UncheckedIOException("could not read size of server log " + file, e);
        }
    }

    void startPumping(InputStream output, String threadName) {
        Thread thread = new Thread(() -> pump(output), threadName);
        thread.setDaemon(true); // must never keep the JVM alive
        pump = thread;
        thread.start();
    }

    private void pump(InputStream output) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(output, StandardCharsets.UTF_8));
                BufferedWriter writer = Files.newBufferedWriter(
                        file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            String line;
            while ((line = reader.readLine()) != null) {
                writer.write(line);
                writer.newLine();
                writer.flush(); // readiness checks read the file while the server is starting
                remember(line);
            }
        } catch (IOException e) {
            // the pipe breaks when the process is killed, or the directory was deleted on close
            LOG.debug("stopped copying server output to {}: {}", file, e.toString());
        }
    }

    /**
     * Waits until the pump has copied everything the process wrote, so that a failure message built
     * after the process exited shows its last words.
     */
    boolean awaitDrained(Duration timeout) {
        Thread thread = pump;
        if (thread == null) {
            return true;
        }
        try {
            thread.join(Math.max(1, timeout.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    private void remember(String line) {
        tailLock.lock();
        try {
            if (tail.size() == tailCapacity) {
                tail.removeFirst();
            }
            tail.addLast(line);
        } finally {
            tailLock.unlock();
        }
    }

    List<String> tail() {
        tailLock.lock();
        try {
            return List.copyOf(tail);
        } finally {
            tailLock.unlock();
        }
    }

    /** Whether a complete line written at or after byte {@code offset} matches {@code pattern}. */
    boolean hasLineMatchingSince(long offset, Pattern pattern) {
        if (!Files.exists(file)) {
            return false;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.position(offset);
            BufferedReader reader =
                    new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (pattern.matcher(line).find()) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("could not read server log " + file, e);
        }
    }
}
