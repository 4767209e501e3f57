package io.latchkey.tck;

import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ElectionListener;
import io.latchkey.recipes.Elector;
import io.latchkey.recipes.Revocation;
import io.latchkey.recipes.Term;
import java.time.Duration;

/**
 * A child JVM for {@link ElectorRules}: runs one elector and prints {@code ELECTED <token>} and
 * {@code REVOKED <token> <reason>} until it is killed. Arguments: the election's name and the lease in
 * milliseconds.
 */
public final class ElectorProcess {
    private ElectorProcess() {}

    /**
     * The child's entry point.
     *
     * @param args the election's name and the lease in milliseconds
     * @throws Exception if the elector cannot start (the parent sees the child's stderr)
     */
    public static void main(String[] args) throws Exception {
        String name = args[0];
        Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
        LockClient client = TckProcessMain.connect();
        Elector elector = Elector.builder(client, name)
                .options(LockOptions.builder().lease(lease).build())
                .listener(
                        new ElectionListener() {
                            @Override
                            public void onElected(Term term) {
                                TckProcessMain.emit("ELECTED " + term.fencingToken());
                            }

                            @Override
                            public void onRevoked(Term term, Revocation why) {
                                TckProcessMain.emit("REVOKED " + term.fencingToken() + " " + why.reason());
                            }
                        },
                        Runnable::run)
                .build()
                .start();
        TckProcessMain.emit("STARTED " + elector.name());
        Thread.currentThread().join(); // until killed
    }
}
