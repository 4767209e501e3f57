package io.latchkey.tck;

import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ExclusiveTasks;
import java.time.Duration;

/**
 * A child JVM for {@link ExclusiveTaskRules}: starts one exclusive task and prints {@code RUNNING <token>} once it
 * runs; the task then runs until the process is killed. Arguments: the lock name and the lease in milliseconds.
 */
public final class ExclusiveTaskProcess {
    private ExclusiveTaskProcess() {}

    /**
     * The child's entry point.
     *
     * @param args the lock name and the lease in milliseconds
     * @throws Exception if the task cannot start (the parent sees the child's stderr)
     */
    public static void main(String[] args) throws Exception {
        String name = args[0];
        Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
        LockClient client = TckProcessMain.connect();
        ExclusiveTasks tasks = ExclusiveTasks.builder(client)
                .options(LockOptions.builder().lease(lease).build())
                .build();
        tasks.start(name, handle -> {
            TckProcessMain.emit("RUNNING " + handle.fencingToken());
            Thread.sleep(Long.MAX_VALUE); // holds the key until killed: the point of the rule
        });
        Thread.currentThread().join();
    }
}
