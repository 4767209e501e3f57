package io.latchkey.cli;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns every command-line mistake into one line on stderr that says what is wrong and what to type
 * instead, and exit status 64 (EX_USAGE). Nothing has been connected or acquired at that point.
 * Stateless; runs on the main thread.
 */
final class UsageErrors implements IParameterExceptionHandler {

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        String path = commandPath(cmd);
        print(cmd.getErr(), path, message(ex, cmd, Arrays.asList(args)));
        return ExitCodes.USAGE;
    }

    private static String message(ParameterException ex, CommandLine cmd, List<String> args) {
        boolean badValue = ex.getCause() instanceof TypeConversionException;
        if (ex instanceof UnmatchedArgumentException unmatched
                && !cmd.getSubcommands().isEmpty()
                && !unmatched.getUnmatched().isEmpty()
                && !unmatched.getUnmatched().get(0).startsWith("-")) {
            // "latchkey exce --name x -- true": the typo is the command, not the options that follow it
            return unknownCommand(cmd, unmatched.getUnmatched().get(0));
        }
        if (cmd.getCommand() instanceof ExecCommand && !args.contains("--") && !badValue) {
            // without '--' the command's own options (ls -l) would be taken for latchkey's
            return ExecCommand.MISSING_END_OF_OPTIONS;
        }
        // picocli reports a missing required option before an unknown one; the typo is the real problem
        Optional<String> unknown = unknownLongOption(cmd, args);
        if (!badValue && unknown.isPresent()) {
            return unmatched(new UnmatchedArgumentException(cmd, List.of(unknown.get())));
        }
        if (ex instanceof UnmatchedArgumentException unmatched) {
            return unmatched(unmatched);
        }
        return ex.getMessage();
    }

    /** The first "--word" before '--' that is not an option of this command. */
    private static Optional<String> unknownLongOption(CommandLine cmd, List<String> args) {
        int end = args.indexOf("--");
        for (String a : end < 0 ? args : args.subList(0, end)) {
            if (a.startsWith("--") && a.length() > 2) {
                String option = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                if (cmd.getCommandSpec().findOption(option) == null) {
                    return Optional.of(option);
                }
            }
        }
        return Optional.empty();
    }

    static void print(PrintWriter err, String path, String message) {
        err.println(path + ": " + oneLine(message) + " (see '" + path + " --help')");
        err.flush();
    }

    private static String unmatched(UnmatchedArgumentException ex) {
        List<String> unmatched = ex.getUnmatched();
        String first = unmatched.isEmpty() ? "?" : unmatched.get(0);
        CommandLine cmd = ex.getCommandLine();
        if (!first.startsWith("-") && !cmd.getSubcommands().isEmpty()) {
            return unknownCommand(cmd, first);
        }
        if (!first.startsWith("-")) {
            return "unexpected argument '" + first + "'";
        }
        String option = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
        return "unknown option '" + option + "'; did you mean "
                + Suggestions.nearest(
                        option,
                        ex.getSuggestions(),
                        cmd.getCommandSpec().optionsMap().keySet()) + "?";
    }

    private static String unknownCommand(CommandLine cmd, String typed) {
        return "unknown command '" + typed + "'; did you mean "
                + Suggestions.nearest(typed, List.of(), cmd.getSubcommands().keySet()) + "? The commands are "
                + String.join(", ", cmd.getSubcommands().keySet());
    }

    static String commandPath(CommandLine cmd) {
        StringBuilder sb = new StringBuilder(cmd.getCommandName());
        for (CommandLine p = cmd.getParent(); p != null; p = p.getParent()) {
            sb.insert(0, p.getCommandName() + " ");
        }
        return sb.toString();
    }

    static String oneLine(String message) {
        return String.valueOf(message).replaceAll("\\s*\\R\\s*", " ").trim();
    }
}
