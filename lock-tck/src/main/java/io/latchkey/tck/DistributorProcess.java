package io.latchkey.tck;

import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ItemWorker;
import io.latchkey.recipes.WorkDistributor;
import java.time.Duration;
import java.util.Arrays;

/**
 * A child JVM for {@link DistributionRules}: one distributor instance that prints {@code ASSIGNED <item> <token>} and
 * {@code REVOKED <item>} until killed. Arguments: group, comma-separated items, cap, lease in milliseconds,
 * instance id.
 */
public final class DistributorProcess {
    private DistributorProcess() {}

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
