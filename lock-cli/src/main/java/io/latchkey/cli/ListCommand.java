package io.latchkey.cli;

import io.latchkey.LockClient;
import io.latchkey.LockInfo;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code latchkey list}: the locks the store holds, sorted by name. One-shot, main thread only. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Lists the locks the store holds (owner, fencing token, expiry). Needs a backend with LISTING.",
        footerHeading = "%nExit status:%n",
        footer = {"  0 listed (possibly none), 64 usage error, 69 backend unavailable or cannot list"})
public final class ListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = {"-p", "--prefix"},
            paramLabel = "PREFIX",
            defaultValue = "",
            description = "Only locks whose name starts with PREFIX.")
    String prefix;

    @Option(names = "--json", description = "Print a JSON array for scripts.")
    boolean json;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        try (LockClient client = backend.connect()) {
            List<LockInfo> locks = SharedFileRetry.call(backend.uri(), "listing", () -> client.list(prefix)).stream()
                    .sorted(java.util.Comparator.comparing(LockInfo::name))
                    .toList();
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(Json.value(locks.stream().map(LockInfoFormat::json).toList()));
            } else if (locks.isEmpty()) {
                out.println("no locks held" + (prefix.isEmpty() ? "" : " with prefix '" + prefix + "'") + " on "
                        + client.backend());
            } else {
                out.print(LockInfoFormat.table(locks, Instant.now()));
            }
            return ExitCodes.OK;
        }
    }
}
