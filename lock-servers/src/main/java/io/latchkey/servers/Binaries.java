package io.latchkey.servers;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Locates server executables on {@code PATH} and in the directories where Debian packages put server
 * binaries that are not on a normal user's {@code PATH} ({@code /usr/sbin}, {@code /usr/lib/postgresql/N/bin},
 * {@code /usr/share/zookeeper/bin}, ...).
 *
 * <p>Design: immutable, so one instance may be shared by threads. The search list is computed when the
 * instance is made; wildcard directories such as {@code /usr/lib/postgresql/*}{@code /bin} are expanded
 * newest version first so the newest installed server wins.
 */
public final class Binaries {

    /**
     * Directories searched after {@code PATH}. A {@code *} segment matches any sub-directory, highest
     * version first.
     */
    public static final List<String> EXTRA_DIRECTORIES = List.of(
            "/usr/local/sbin",
            "/usr/sbin",
            "/sbin",
            "/usr/lib/postgresql/*/bin",
            "/usr/share/zookeeper/bin",
            "/usr/lib/zookeeper/bin",
            "/opt/zookeeper/bin");

    private final List<Path> searchedDirectories;

    private Binaries(String pathVariable) {
        Set<Path> dirs = new LinkedHashSet<>();
        if (pathVariable != null) {
            for (String entry : pathVariable.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    dirs.add(Path.of(entry));
                }
            }
        }
        for (String extra : EXTRA_DIRECTORIES) {
            dirs.addAll(expand(extra));
        }
        this.searchedDirectories = List.copyOf(dirs);
    }

    /**
     * A finder using this JVM's {@code PATH}.
     *
     * @return a finder
     */
    public static Binaries fromEnvironment() {
        return new Binaries(System.getenv("PATH"));
    }

    /**
     * A finder using the given value of {@code PATH} (so tests can simulate another environment).
     *
     * @param pathVariable a {@code PATH}-style list of directories, or {@code null} for none
     * @return a finder
     */
    public static Binaries forPath(String pathVariable) {
        return new Binaries(pathVariable);
    }

    /**
     * Locates an executable on this JVM's {@code PATH} or in {@link #EXTRA_DIRECTORIES}.
     *
     * @param name a bare file name such as {@code redis-server}
     * @return the executable, or empty if there is none
     * @throws IllegalArgumentException if {@code name} is blank or contains a {@code /}
     */
    public static Optional<Path> find(String name) {
        return fromEnvironment().locate(name);
    }

    /**
     * Locates an executable in this finder's directories, first match wins.
     *
     * @param name a bare file name such as {@code redis-server}
     * @return the executable, or empty if there is none
     * @throws IllegalArgumentException if {@code name} is blank or contains a {@code /}
     */
    public Optional<Path> locate(String name) {
        requireBareName(name);
        for (Path dir : searchedDirectories) {
            Path candidate = dir.resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * The directories {@link #locate} searches, in order; useful in "not found" messages.
     *
     * @return an immutable list
     */
    public List<Path> searchedDirectories() {
        return searchedDirectories;
    }

    static void requireBareName(String name) {
        if (name == null || name.isBlank() || name.contains("/")) {
            throw new IllegalArgumentException(
                    "binary name must be a bare file name such as 'redis-server' (no '/'), was '" + name + "'");
        }
    }

    private static List<Path> expand(String pattern) {
        int star = pattern.indexOf("/*/");
        if (star < 0) {
            return List.of(Path.of(pattern));
        }
        Path parent = Path.of(pattern.substring(0, star));
        String rest = pattern.substring(star + 3);
        List<Path> children = new ArrayList<>();
        if (!Files.isDirectory(parent)) {
            return children;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(parent, Files::isDirectory)) {
            stream.forEach(children::add);
        } catch (IOException e) {
            return List.of(); // an unreadable directory simply holds no binaries for us
        }
        children.sort(Comparator.comparing((Path p) -> p.getFileName().toString(), Binaries::compareVersions)
                .reversed());
        List<Path> result = new ArrayList<>(children.size());
        for (Path child : children) {
            result.add(child.resolve(rest));
        }
        return result;
    }

    /** Compares "9.6" and "15" numerically segment by segment, so that 15 sorts above 9.6. */
    static int compareVersions(String a, String b) {
        String[] left = a.split("\\.");
        String[] right = b.split("\\.");
        for (int i = 0; i < Math.max(left.length, right.length); i++) {
            String l = i < left.length ? left[i] : "0";
            String r = i < right.length ? right[i] : "0";
            int cmp;
            if (l.matches("\\d{1,9}") && r.matches("\\d{1,9}")) {
                cmp = Integer.compare(Integer.parseInt(l), Integer.parseInt(r));
            } else {
                cmp = l.compareTo(r);
            }
            if (cmp != 0) {
                return cmp;
            }
        }
        return 0;
    }
}
