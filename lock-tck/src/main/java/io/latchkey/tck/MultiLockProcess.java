package io.latchkey.tck;

import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.MultiLockHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A child JVM for {@link MultiLockRules}: takes {@code lockAll} of the given names and prints
 * {@code HELD name=token,...}, then holds them until killed. Arguments: the lease in milliseconds, then the names.
 */
public final class MultiLockProcess {
    private MultiLockProcess() {}

    /**
     * The child's entry point.
     *
     * @param args the lease in milliseconds, then the names
     * @throws Exception if the locks cannot be taken (the parent sees the child's stderr)
     */
    public static void main(String[] args) throws Exception {
        Duration lease = Duration.ofMillis(Long.parseLong(args[0]));
        List<String> names = Arrays.asList(args).subList(1, args.length);
        LockClient client = TckProcessMain.connect();
        MultiLockHandle held = client.lockAll(
                        names, LockOptions.builder().lease(lease).build())
                .acquire(Duration.ofSeconds(30));
        TckProcessMain.emit("HELD "
                + held.fencingTokens().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(",")));
        Thread.currentThread().join();
    }
}
