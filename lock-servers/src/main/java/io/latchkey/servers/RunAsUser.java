package io.latchkey.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs a server as another operating-system user when the JVM runs as root, because some servers
 * (PostgreSQL, for one) refuse to run as root.
 *
 * <p>Design: prefers {@code runuser -u USER -- command...}, which passes arguments untouched; falls back to
 * {@code su USER -s /bin/sh -c 'exec ...'} with shell quoting. Both wrappers fork the real server as their
 * child, which is why {@link ServerProcess} signals whole process trees. Stateless; safe from any thread.
 */
public final class RunAsUser {

    private static final Pattern USER_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,31}\\$?");

    private RunAsUser() {}

    /**
     * Whether this JVM runs as root (uid 0).
     *
     * @return {@code true} for root
     */
    public static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /**
     * The name of the user this JVM runs as.
     *
     * @return the user name
     */
    public static String currentUser() {
        return System.getProperty("user.name");
    }

    /**
     * The command that runs {@code command} as {@code user}: unchanged if this JVM already runs as that user
     * or is not root (only root may switch users; the caller is told by a log line from
     * {@link ServerProcess}), else wrapped with {@code runuser} or {@code su}.
     *
     * @param user a user name such as {@code postgres}
     * @param command the server command
     * @return the command to execute
     * @throws IllegalArgumentException if {@code user} is not a valid user name or {@code command} is empty
     */
    public static List<String> wrap(String user, List<String> command) {
        requireValidUser(user);
        if (command == null || command.isEmpty()) {
            throw new IllegalArgumentException("command must have at least the executable, was " + command);
        }
        if (user.equals(currentUser()) || !isRoot()) {
            return List.copyOf(command);
        }
        List<String> wrapped = new ArrayList<>();
        var runuser = Binaries.find("runuser");
        if (runuser.isPresent()) {
            wrapped.add(runuser.get().toString());
            wrapped.add("-u");
            wrapped.add(user);
            wrapped.add("--");
            wrapped.addAll(command);
        } else {
            wrapped.add(Binaries.find("su").map(Path::toString).orElse("su"));
            wrapped.add(user);
            wrapped.add("-s");
            wrapped.add("/bin/sh");
            wrapped.add("-c");
            // exec so that the shell is replaced by the server and does not linger in the tree
            wrapped.add("exec " + command.stream().map(RunAsUser::shellQuote).collect(Collectors.joining(" ")));
        }
        return List.copyOf(wrapped);
    }

    /**
     * Makes {@code user} the owner of {@code path} and, for a directory, of everything below it, so that a
     * server run as that user can use a data directory the JVM created. Does nothing unless this JVM is root.
     *
     * @param path a file or directory
     * @param user the new owner
     * @throws IOException if the user is unknown or ownership cannot be changed
     */
    public static void giveOwnership(Path path, String user) throws IOException {
        requireValidUser(user);
        if (!isRoot()) {
            return;
        }
        UserPrincipal owner =
                path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Files.setOwner(p, owner);
            }
        }
    }

    static void requireValidUser(String user) {
        if (user == null || !USER_NAME.matcher(user).matches()) {
            throw new IllegalArgumentException("user must be a user name such as 'postgres' (letters, digits, "
                    + "'_', '.', '-'; at most 32 characters), was '" + user + "'");
        }
    }

    /** Quotes one argument for a POSIX shell. */
    static String shellQuote(String argument) {
        if (!argument.isEmpty() && argument.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return argument;
        }
        return "'" + argument.replace("'", "'\"'\"'") + "'";
    }
}
