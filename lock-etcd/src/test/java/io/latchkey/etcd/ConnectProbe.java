package io.latchkey.etcd;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A separate JVM that connects as a user's application would, at the logging levels a command-line user has
 * (SLF4J simple at WARN, java.util.logging untouched), and prints on stdout how long the connect took and the
 * error's message. Then it stays alive for {@code lingerMillis}, so that anything a client thread logs later
 * reaches stderr too.
 *
 * <p>Arguments: URI, linger in ms, then settings as key=value.
 */
public final class ConnectProbe {
    private ConnectProbe() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        long start = System.nanoTime();
        try (LockClient client = Latchkey.connect(URI.create(args[0]), settings)) {
            System.out.println("CONNECTED " + client.backend());
            try (var h = client.lock("probe/lock").acquire(java.time.Duration.ofSeconds(10))) {
                System.out.println("HELD " + h + " " + client.inspect("probe/lock") + " " + client.list("probe/"));
            }
        } catch (RuntimeException e) {
            System.out.println("FIRSTLINE " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
            System.out.println("ELAPSED " + (System.nanoTime() - start) / 1_000_000);
            System.out.println("ERROR " + e.getMessage());
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                System.out.println("CAUSE " + c);
            }
        }
        System.out.flush();
        Thread.sleep(Long.parseLong(args[1]));
        System.out.println("DONE");
    }
}
