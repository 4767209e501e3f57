package io.latchkey.cli;

import io.latchkey.LockClient;
import io.latchkey.LockInfo;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code latchkey release --force NAME}: removes a grant whoever holds it, for operators. The holder
 * reports {@code RELEASED_BY_ADMIN} at its next renewal (a {@code latchkey exec} holder then stops its
 * command). One-shot, main thread only.
 */
@Command(
        name = "release",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Removes the current grant of the lock NAME, whoever holds it (an operator's tool). The "
                    + "holder learns of it at its next renewal (RELEASED_BY_ADMIN); a latchkey exec holder then stops its "
                    + "command.",
            ""
        },
        footerHeading = "%nExit status:%n",
        footer = {"  0 released, 1 was not held, 64 usage error (e.g. no --force), 69 backend unavailable"})
public final class ReleaseCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = {"-f", "--force"},
            description = "Required: confirms that another process's grant is to be removed.")
    boolean force;

    @Parameters(paramLabel = "NAME", converter = LockNameConverter.class, description = "The lock's name.")
    String name;

    @Option(names = "--json", description = "Print a JSON object for scripts.")
    boolean json;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        if (!force) {
            throw new ParameterException(
                    spec.commandLine(),
                    "release removes whoever holds the lock and needs --force; type: latchkey release --force "
                            + (name.contains(" ") ? "'" + name + "'" : name));
        }
        try (LockClient client = backend.connect()) {
            Optional<LockInfo> before = SharedFileRetry.call(backend.uri(), "inspecting", () -> client.inspect(name));
            boolean released = SharedFileRetry.call(backend.uri(), "releasing", () -> client.forceRelease(name));
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", name);
                m.put("released", released);
                m.put("owner", released ? before.map(LockInfo::owner).orElse(null) : null);
                m.put(
                        "fencingToken",
                        released ? before.map(LockInfo::fencingToken).orElse(null) : null);
                out.println(Json.object(m));
            } else if (released) {
                // say what was done, to whom and where: a forced release is an administrative action
                out.println("released '" + name + "'"
                        + before.map(i -> " (was held by " + i.owner() + ", token " + i.fencingToken() + ")")
                                .orElse("")
                        + " on " + client.backend() + "; the holder learns of it at its next renewal");
            } else {
                out.println("'" + name + "' was not held on " + client.backend());
            }
            return released ? ExitCodes.OK : ExitCodes.NEGATIVE;
        }
    }
}
