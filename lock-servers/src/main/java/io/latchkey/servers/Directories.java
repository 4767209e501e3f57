package io.latchkey.servers;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one recursive delete of the project, for the data and log directories of servers started by tests, the
 * CLI and the benchmarks. Symbolic links are deleted, never followed. Stateless; safe from any thread.
 */
public final class Directories {

    private static final Logger LOG = LoggerFactory.getLogger(Directories.class);

    private Directories() {}

    /**
     * Deletes a directory (or file) and everything below it; a missing path is not an error.
     *
     * @param root what to delete
     * @throws IOException if something could not be deleted
     */
    public static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * {@link #deleteRecursively(Path)}, best effort: a leftover temporary directory must not fail a test that
     * passed or a command that worked, so a failure is logged (WARN) and swallowed.
     *
     * @param root what to delete
     */
    public static void deleteQuietly(Path root) {
        try {
            deleteRecursively(root);
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not delete {}: {}", root, e.toString());
        }
    }
}
