package io.latchkey.cli;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ItemWorker;
import io.latchkey.recipes.WorkDistributor;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * latchkey distribute: one WorkDistributor instance that runs one child command per item it claims.
 *
 * The main thread connects, starts the distributor and waits for a signal. Each claimed item's work runs on the
 * distributor's item thread: it starts the child ({item} replaced by the item) and waits for it; when the item is
 * given up or lost that thread is interrupted and stops the child's tree (SIGTERM, SIGKILL after the grace). A child
 * that exits by itself while its item is still held is started again after a second, so an item's work keeps
 * running where the item is. On SIGTERM/SIGINT/SIGHUP the distributor is closed: every child stopped, every item
 * released, membership left; latchkey exits 128+N.
 */
@Command(
        name = "distribute",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        customSynopsis = {
            "latchkey distribute -n GROUP --items A,B,C [--cap N] [-l DURATION] [-g DURATION] [-v]",
            "                    [-b URI] [-s KEY=VALUE]... -- COMMAND [ARG...]"
        },
        description = {
            "Spreads ITEMS over every running 'latchkey distribute' of GROUP on one store, at most N per instance, "
                    + "and runs COMMAND once per item this instance claims, with {item} in its arguments replaced by "
                    + "the item (and LATCHKEY_ITEM, LATCHKEY_NAME, LATCHKEY_TOKEN in its environment). When instances "
                    + "join or leave, items move to even the load; a dead instance's items are taken over after "
                    + "the lease. Runs until SIGTERM/SIGINT.",
            ""
        },
        footerHeading = "%nExit status:%n",
        footer = {
            "  128+N after signal N (the normal way to stop it), 64 usage error, 69 backend unavailable",
            "",
            "Example: latchkey distribute -n consumers --items orders,invoices,refunds --cap 2 -- ./consume.sh {item}"
        })
public final class DistributeCommand implements Callable<Integer> {
    private static final Duration RESTART_PAUSE = Duration.ofSeconds(1);

    @Spec
    CommandSpec spec;

    @Option(
            names = {"-n", "--name"},
            required = true,
            paramLabel = "GROUP",
            converter = LockNameConverter.class,
            description = "The group: locks are GROUP/members/ID and GROUP/items/ITEM.")
    String group;

    @Option(names = "--items", required = true, paramLabel = "A,B,C", description = "The items, comma-separated.")
    String items;

    @Option(
            names = "--cap",
            paramLabel = "N",
            defaultValue = "" + Integer.MAX_VALUE,
            description = "At most N items on this instance (default: no cap).")
    int cap;

    @Option(
            names = {"-l", "--lease"},
            paramLabel = "DURATION",
            defaultValue = "30s",
            converter = DurationConverter.class,
            description = "Lease of membership and items (default: ${DEFAULT-VALUE}); a dead instance's items move "
                    + "after at most this long plus a rebalancing round (a third of it).")
    Duration lease;

    @Option(
            names = {"-g", "--grace"},
            paramLabel = "DURATION",
            defaultValue = "10s",
            converter = DurationConverter.class,
            description =
                    "When an item goes: time between SIGTERM and SIGKILL of its command (default: ${DEFAULT-VALUE}).")
    Duration grace;

    @Option(
            names = {"-v", "--verbose"},
            description = "Say on stderr when an item is claimed or given up.")
    boolean verbose;

    @Mixin
    BackendOptions backend;

    @Parameters(paramLabel = "COMMAND", arity = "1..*", description = "The command, after '--'; {item} is replaced.")
    List<String> command;

    @Override
    public Integer call() throws InterruptedException {
        if (!spec.commandLine().getParseResult().originalArgs().contains("--")) {
            throw new ParameterException(
                    spec.commandLine(),
                    "missing '--' before the command; type: latchkey "
                            + "distribute -n GROUP --items A,B,C -- COMMAND {item}");
        }
        List<String> itemList =
                Arrays.stream(items.split(",")).map(String::trim).toList();
        if (cap < 1) {
            throw new ParameterException(spec.commandLine(), "--cap must be at least 1, was " + cap);
        }
        PrintWriter err = spec.commandLine().getErr();
        try (SignalRelay signals = SignalRelay.install();
                LockClient client = backend.connect()) {
            WorkDistributor distributor;
            try {
                distributor = WorkDistributor.builder(client, group)
                        .items(itemList)
                        .cap(cap)
                        .options(LockOptions.builder().lease(lease).build())
                        .stopTimeout(grace.plusSeconds(5))
                        .worker(new ChildPerItem(err))
                        .build();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            try (WorkDistributor running = distributor.start()) {
                if (verbose) {
                    err.println("latchkey distribute: instance " + running.instanceId() + " of '" + group + "' on "
                            + client.backend() + ", " + itemList.size() + " items, cap "
                            + (cap == Integer.MAX_VALUE ? "none" : cap));
                    err.flush();
                }
                signals.stopped().join();
            }
            return signals.signalStatus();
        }
    }

    /** Runs the command for one item while the item is held (on the distributor's item thread). */
    private final class ChildPerItem implements ItemWorker {
        private final PrintWriter err;

        ChildPerItem(PrintWriter err) {
            this.err = err;
        }

        @Override
        public void onAssigned(String item, LockHandle handle) throws InterruptedException {
            say("claimed item '" + item + "' (token " + handle.fencingToken() + ")");
            while (handle.isValid()) {
                Process child = start(item, handle);
                if (child == null) {
                    return; // could not start: the item stays claimed and idle; the error was printed
                }
                try {
                    int status = child.waitFor();
                    say("the command for item '" + item + "' exited with status " + status + "; restarting it");
                    TimeUnit.NANOSECONDS.sleep(RESTART_PAUSE.toNanos()); // not synchronisation: a restart pause
                } catch (InterruptedException e) {
                    ChildProcesses.terminateTree(child, grace);
                    ChildProcesses.waitFor(child);
                    throw e;
                }
            }
        }

        @Override
        public void onRevoked(String item) {
            say("gave up item '" + item + "'");
        }

        private Process start(String item, LockHandle handle) {
            List<String> args = new ArrayList<>(command.size());
            command.forEach(a -> args.add(a.replace("{item}", item)));
            ProcessBuilder pb = new ProcessBuilder(args).inheritIO();
            pb.environment().put("LATCHKEY_ITEM", item);
            pb.environment().put("LATCHKEY_NAME", handle.name());
            pb.environment().put("LATCHKEY_TOKEN", Long.toString(handle.fencingToken()));
            try {
                return pb.start();
            } catch (IOException e) {
                err.println("latchkey distribute: cannot run '" + args.get(0) + "' for item '" + item + "': "
                        + e.getMessage());
                err.flush();
                return null;
            }
        }

        private void say(String what) {
            if (verbose) {
                err.println("latchkey distribute: " + what);
                err.flush();
            }
        }
    }
}
