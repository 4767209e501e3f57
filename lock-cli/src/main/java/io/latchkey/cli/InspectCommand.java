package io.latchkey.cli;

import io.latchkey.LockClient;
import io.latchkey.LockInfo;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code latchkey inspect NAME}: who holds one lock. One-shot, main thread only. */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Shows who holds the lock NAME: owner, fencing token, acquisition time and expiry.",
        footerHeading = "%nExit status:%n",
        footer = {"  0 held, 1 not held, 64 usage error, 69 backend unavailable"})
public final class InspectCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NAME", converter = LockNameConverter.class, description = "The lock's name.")
    String name;

    @Option(names = "--json", description = "Print a JSON object for scripts ({\"held\":false} when free).")
    boolean json;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        try (LockClient client = backend.connect()) {
            Optional<LockInfo> info = SharedFileRetry.call(backend.uri(), "inspecting", () -> client.inspect(name));
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(Json.object(info.map(LockInfoFormat::json).orElseGet(() -> LockInfoFormat.notHeld(name))));
            } else if (info.isPresent()) {
                out.println(LockInfoFormat.details(info.get(), Instant.now()));
            } else {
                out.println("'" + name + "' is not held on " + client.backend());
            }
            return info.isPresent() ? ExitCodes.OK : ExitCodes.NEGATIVE;
        }
    }
}
