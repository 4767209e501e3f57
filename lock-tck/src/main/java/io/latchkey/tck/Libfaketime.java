package io.latchkey.tck;

import io.latchkey.tck.server.TckServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.opentest4j.TestAbortedException;

/*
 * libfaketime (Debian package libfaketime) preloaded into a child JVM shifts what the child reads from the wall
 * clock by the offset in a file it re-reads once a second (FAKETIME_TIMESTAMP_FILE + FAKETIME_CACHE_DURATION), so a
 * test steps the child's wall clock while it runs by writing "+3600" into that file. CLOCK_MONOTONIC is left alone
 * (DONT_FAKE_MONOTONIC, FAKETIME_DONT_FAKE_MONOTONIC: the variable was renamed in 0.9.10), as the kernel leaves
 * it alone when an administrator or NTP steps the real clock.
 *
 * FAKETIME_FORCE_MONOTONIC_FIX=0: libfaketime 0.9.10 turns its "monotonic fix" on by itself, and with it the
 * timed waits it intercepts (pthread_cond_timedwait) compute their deadline from the faked clock, so after a step
 * they wake too late or too early (its README says so). A child's keep-alive or watchdog thread that sleeps in
 * such a wait then stalls, and the lock is lost for a reason no real clock step produces: an etcd holder lost its
 * lock in about half the runs with the fix on, in none of 6 with it off. The JVM times its waits on
 * CLOCK_MONOTONIC, which the kernel, not libfaketime, should answer.
 */
/** A wall clock for a child JVM that a rule can step, by libfaketime. */
final class Libfaketime implements AutoCloseable {
    static final String LIBRARY_VARIABLE = "LATCHKEY_LIBFAKETIME";
    private static final List<String> CANDIDATES = List.of(
            "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
            "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
            "/usr/lib/faketime/libfaketime.so.1",
            "/usr/local/lib/faketime/libfaketime.so.1");

    private final Path library;
    private final Path offsetFile;

    private Libfaketime(Path library, Path offsetFile) {
        this.library = library;
        this.offsetFile = offsetFile;
    }

    /** A clock at offset 0, or a skip (a failure under LATCHKEY_REQUIRE_SERVERS=true) when the library is missing. */
    static Libfaketime start() {
        Path library = find().orElseThrow(() -> {
            String why = "libfaketime is not installed (apt-get install libfaketime, or set " + LIBRARY_VARIABLE
                    + " to libfaketime.so.1): the clock fault rules need it";
            if (TckServers.serversRequired(System::getenv)) {
                throw new AssertionError(why + ", and " + TckServers.REQUIRE_SERVERS_VARIABLE + "=true");
            }
            return new TestAbortedException(why);
        });
        try {
            Path file = Files.createTempFile("latchkey-faketime", ".offset");
            Libfaketime clock = new Libfaketime(library, file);
            clock.step(0);
            return clock;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The child's environment. */
    Map<String, String> environment() {
        return Map.of(
                "LD_PRELOAD", library.toString(),
                "FAKETIME_TIMESTAMP_FILE", offsetFile.toString(),
                "FAKETIME_CACHE_DURATION", "1",
                "DONT_FAKE_MONOTONIC", "1",
                "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                "FAKETIME_FORCE_MONOTONIC_FIX", "0");
    }

    /** Sets the child's wall clock to real time + {@code seconds}; it sees the step within a second. */
    void step(long seconds) {
        try {
            Files.writeString(offsetFile, (seconds < 0 ? "" : "+") + seconds + "\n", StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(offsetFile);
        } catch (IOException e) {
            // a temporary file left behind
        }
    }

    private static Optional<Path> find() {
        String explicit = System.getenv(LIBRARY_VARIABLE);
        Stream<String> paths = explicit != null ? Stream.of(explicit) : CANDIDATES.stream();
        return paths.map(Path::of).filter(Files::isReadable).findFirst();
    }
}
