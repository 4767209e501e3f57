package io.latchkey.servers;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs a one-shot setup command of a server recipe ({@code initdb}, {@code mariadb-install-db}) to completion,
 * its output in a log file, and turns a failure into one line: the program and its last lines of output.
 * Stateless; the caller's thread waits.
 */
public final class SetupCommand {

    private SetupCommand() {}

    /**
     * Runs {@code command} and waits for it.
     *
     * @param program what messages call it, e.g. {@code initdb}
     * @param command the executable and its arguments
     * @param logFile where its output goes
     * @param timeout how long it may take; it is killed after that
     * @param started told about the process as soon as it exists (e.g. to kill it on Ctrl-C), may do nothing
     * @throws IOException if it cannot be started, exits with a non-zero code or does not finish in time
     * @throws InterruptedException if interrupted while waiting (the process is killed)
     */
    public static void run(
            String program, List<String> command, Path logFile, Duration timeout, Consumer<Process> started)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        started.accept(p);
        boolean finished;
        try {
            finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            ProcessTree.killAndAwait(program, p);
            throw e;
        }
        if (!finished) {
            ProcessTree.killAndAwait(program, p); // gone when this returns, not just signalled
            throw new IOException(program + " did not finish within " + ProcessLaunch.seconds(timeout));
        }
        if (p.exitValue() != 0) {
            // the last lines that say something: mariadb-install-db ends its output with blank lines
            List<String> said = Files.readAllLines(logFile, StandardCharsets.UTF_8).stream()
                    .map(String::trim)
                    .filter(l -> !l.isEmpty())
                    .toList();
            String last = said.isEmpty()
                    ? "(no output)"
                    : String.join(" | ", said.subList(Math.max(0, said.size() - 3), said.size()));
            throw new IOException(program + " failed with exit code " + p.exitValue() + ": " + last);
        }
    }
}
