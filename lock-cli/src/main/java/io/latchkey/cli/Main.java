package io.latchkey.cli;

import picocli.CommandLine;

/**
 * Entry point of {@code latchkey.jar}: sets up picocli (usage errors exit 64 with one line, known failures
 * map to the statuses in {@link ExitCodes}) and exits with the command's status.
 *
 * <p>Runs on the main thread only; commands start their own threads where they need them.
 */
public final class Main {
    private Main() {}

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs the command line and returns the exit status (for tests and embedding).
     *
     * @param args the command line
     * @return the exit status ({@link ExitCodes}; {@code exec} passes on its command's own)
     */
    public static int run(String... args) {
        // before any logger exists: library logging stays off the terminal (see CliLogging)
        CliLogging.configure();
        // H2's automatic mixed mode (the embedded default) serves the database file to other processes
        // over TCP; loopback is enough for processes on this machine and exposes nothing to the network.
        if (System.getProperty("h2.bindAddress") == null) {
            System.setProperty("h2.bindAddress", "127.0.0.1");
        }
        // charts are drawn off-screen; never try to open a display
        System.setProperty("java.awt.headless", "true");
        CommandLine cl = commandLine();
        for (String arg : args) {
            if (arg.indexOf('\uFFFD') >= 0) {
                // the JVM decoded argv with the locale's charset and met bytes it cannot represent: a lock
                // name would silently become another (and two names the same); refuse instead
                cl.getErr()
                        .println("latchkey: an argument is not valid text in this locale's character set ("
                                + System.getProperty("sun.jnu.encoding") + "): '" + arg + "'; run with a UTF-8 locale, "
                                + "for example LC_ALL=C.UTF-8 latchkey ...");
                cl.getErr().flush();
                return ExitCodes.USAGE;
            }
        }
        int status = cl.execute(args);
        cl.getOut().flush();
        cl.getErr().flush();
        return status;
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new LatchkeyCommand());
        cl.setParameterExceptionHandler(new UsageErrors());
        cl.setExecutionExceptionHandler(new ExecutionErrors());
        cl.setAbbreviatedOptionsAllowed(false);
        return cl;
    }
}
