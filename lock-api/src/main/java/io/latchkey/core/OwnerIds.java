package io.latchkey.core;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Owner ids: {@code <host>/<pid>/<random>:<sequence>}. The client part is readable in {@code inspect}
 * output (which machine and process holds the lock) and random enough that two clients never share it;
 * the sequence makes every acquisition's id unique, so a retried request recognises its own grant while a
 * later acquisition by the same client is a different owner.
 *
 * The sequence is striped: each stripe counts on its own cache line, and its numbers are its count times STRIPES plus
 * the stripe, so no two stripes make the same number. Threads of one client acquiring at once then do not all
 * increment one counter (one shared line, bounced between cores on every acquisition). Numbers are unique, not in the
 * order the acquisitions were made; nothing needs that order (fencing tokens come from the store).
 */
final class OwnerIds {
    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final int STRIPES = 16; // a power of two

    private final String clientId;
    private final AtomicLongArray counts = new AtomicLongArray(STRIPES * ThreadStripes.SPACING);

    OwnerIds(String label) {
        this.clientId = (label == null || label.isBlank() ? defaultLabel() : label) + "/" + random(10);
    }

    String clientId() {
        return clientId;
    }

    String next() {
        int slot = ThreadStripes.index(STRIPES);
        long count = counts.incrementAndGet(slot);
        return clientId + ':' + (count * STRIPES + slot / ThreadStripes.SPACING); // + the stripe
    }

    private static String defaultLabel() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (Exception | Error e) {
                host = "localhost";
            }
        }
        return host + "/" + ProcessHandle.current().pid();
    }

    private static String random(int length) {
        SecureRandom random = new SecureRandom();
        char[] out = new char[length];
        for (int i = 0; i < length; i++) {
            out[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return new String(out);
    }
}
