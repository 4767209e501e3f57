package io.latchkey.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The top-level {@code latchkey} command: only dispatches to its subcommands. Stateless. */
@Command(
        name = "latchkey",
        mixinStandardHelpOptions = true,
        versionProvider = LatchkeyCommand.Version.class,
        description = {
            "Distributed locks from the command line: run a job on exactly one machine, look at and free "
                    + "locks, compare backends, and check a backend against the Latchkey TCK.",
            ""
        },
        subcommands = {
            ExecCommand.class,
            DistributeCommand.class,
            ListCommand.class,
            InspectCommand.class,
            ReleaseCommand.class,
            BenchCommand.class,
            VerifyCommand.class,
            AutoComplete.GenerateCompletion.class
        },
        footerHeading = "%nBackend:%n",
        footer = {
            "  Every command takes --backend URI; without it $LATCHKEY_BACKEND, else an",
            "  embedded H2 file database in ~/.latchkey that every latchkey process on",
            "  this machine shares.",
            "  Shell completion: source <(latchkey generate-completion)"
        })
public final class LatchkeyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a command is required: exec, list, inspect, release, bench or verify");
    }

    /** The version from the build (filtered resource). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = LatchkeyCommand.class.getResourceAsStream("/io/latchkey/cli/version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            return new String[] {
                "latchkey " + p.getProperty("version", "(unknown version)"),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
            };
        }
    }
}
