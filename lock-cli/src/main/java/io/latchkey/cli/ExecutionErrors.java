package io.latchkey.cli;

import io.latchkey.BackendUnavailableException;
import io.latchkey.LockException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Maps what a command throws to one line on stderr and an exit status: bad input found after parsing
 * (an {@link IllegalArgumentException} from the API: lease, settings, URI) is a usage error (64); a store
 * that cannot be reached, or cannot do what was asked, is 69; anything else is a bug (70, with the stack
 * trace). Stateless; runs on the main thread.
 */
final class ExecutionErrors implements IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        String path = UsageErrors.commandPath(cmd);
        if (ex instanceof CommandLine.ParameterException pe) {
            return new UsageErrors()
                    .handleParseException(pe, parseResult.originalArgs().toArray(String[]::new));
        }
        if (ex instanceof MissingDriverException) {
            cmd.getErr().println(path + ": " + ex.getMessage());
            cmd.getErr().flush();
            return ExitCodes.USAGE;
        }
        if (ex instanceof IllegalArgumentException) {
            UsageErrors.print(cmd.getErr(), path, ex.getMessage());
            return ExitCodes.USAGE;
        }
        if (ex instanceof BackendUnavailableException) {
            cmd.getErr().println(path + ": backend unavailable: " + UsageErrors.oneLine(ex.getMessage()));
            cmd.getErr().flush();
            return ExitCodes.BACKEND_UNAVAILABLE;
        }
        if (ex instanceof UnsupportedOperationException || ex instanceof LockException) {
            cmd.getErr().println(path + ": " + UsageErrors.oneLine(ex.getMessage()));
            cmd.getErr().flush();
            return ExitCodes.BACKEND_UNAVAILABLE;
        }
        cmd.getErr().println(path + ": internal error: " + ex);
        ex.printStackTrace(cmd.getErr());
        cmd.getErr().flush();
        return ExitCodes.INTERNAL;
    }
}
