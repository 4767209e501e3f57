package io.latchkey.tck;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a child JVM started by {@link TckContext#startProcess} uses: {@link #connect()} opens a client on the store
 * under test, {@link #emit(String)} reports a line to the parent. The first call also arms the child to halt
 * when the parent closes its stdin (the parent ended or killed the test), so no child outlives its test.
 */
public final class TckProcessMain {
    private static volatile boolean watching;

    private TckProcessMain() {}

    /**
     * A client on the store the parent test runs against, as {@link ProcessBackend} describes it.
     *
     * @return the client
     */
    public static LockClient connect() {
        watchParent();
        String uri = System.getenv(TckProcess.URI_ENV);
        if (uri == null) {
            throw new IllegalStateException(
                    TckProcess.URI_ENV + " is not set: this main runs only as a child of a TCK rule");
        }
        return Latchkey.connect(uri, decode(System.getenv(TckProcess.SETTINGS_ENV)));
    }

    /**
     * Prints one line to the parent and flushes.
     *
     * @param line the line
     */
    public static void emit(String line) {
        watchParent();
        System.out.println(line); // PrintStream serialises concurrent lines
        System.out.flush();
    }

    private static void watchParent() {
        if (watching) {
            return;
        }
        watching = true;
        io.latchkey.spi.DaemonThreads.start("tck-child-stdin", () -> {
            try {
                while (System.in.read() >= 0) {
                    // the parent writes nothing; EOF means it is gone
                }
            } catch (IOException e) {
                // same
            }
            Runtime.getRuntime().halt(3);
        });
    }

    private static Map<String, String> decode(String encoded) {
        Map<String, String> settings = new LinkedHashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return settings;
        }
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            settings.put(
                    URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return settings;
    }
}
