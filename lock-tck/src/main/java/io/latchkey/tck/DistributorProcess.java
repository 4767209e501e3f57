package io.latchkey.tck;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ItemWorker;
import io.latchkey.recipes.WorkDistributor;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * A child JVM for {@link DistributionRules}: one distributor instance that prints {@code ASSIGNED <item> <token>} and
 * {@code REVOKED <item>} until killed. Arguments: group, comma-separated items, cap, lease in milliseconds,
 * instance id.
 */
public final class DistributorProcess {
    private DistributorProcess() {}

    /**
     * The items a child running this class holds now, as its ASSIGNED and REVOKED lines so far say.
     *
     * @param child the child JVM
     * @return the items, a new set
     */
    static Set<String> itemsHeldBy(TckProcess child) {
        Set<String> held = new HashSet<>();
        for (String line : child.lines()) {
            String[] words = line.split(" ");
            if (words.length >= 2 && words[0].equals("ASSIGNED")) {
                held.add(words[1]);
            } else if (words.length >= 2 && words[0].equals("REVOKED")) {
                held.remove(words[1]);
            }
        }
        return held;
    }

    /**
     * The child's entry point.
     *
     * @param args group, comma-separated items, cap, lease in milliseconds, instance id
     * @throws Exception if the distributor cannot start (the parent sees the child's stderr)
     */
    public static void main(String[] args) throws Exception {
        LockClient client = TckProcessMain.connect();
        WorkDistributor.builder(client, args[0])
                .items(Arrays.asList(args[1].split(",")))
                .cap(Integer.parseInt(args[2]))
                .options(LockOptions.builder()
                        .lease(Duration.ofMillis(Long.parseLong(args[3])))
                        .build())
                .instanceId(args[4])
                .worker(new ItemWorker() {
                    @Override
                    public void onAssigned(String item, LockHandle handle) {
                        TckProcessMain.emit("ASSIGNED " + item + " " + handle.fencingToken());
                    }

                    @Override
                    public void onRevoked(String item) {
                        TckProcessMain.emit("REVOKED " + item);
                    }
                })
                .build()
                .start();
        Thread.currentThread().join();
    }
}
