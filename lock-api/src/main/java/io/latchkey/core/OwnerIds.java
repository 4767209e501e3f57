package io.latchkey.core;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner ids: {@code <host>/<pid>/<random>:<sequence>}. The client part is readable in {@code inspect}
 * output (which machine and process holds the lock) and random enough that two clients never share it;
 * the sequence makes every acquisition's id unique, so a retried request recognises its own grant while a
 * later acquisition by the same client is a different owner.
 */
final class OwnerIds {
    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();

    private final String clientId;
    private final AtomicLong sequence = new AtomicLong();

    OwnerIds(String label) {
        this.clientId = (label == null || label.isBlank() ? defaultLabel() : label) + "/" + random(10);
    }

    String clientId() {
        return clientId;
    }

    String next() {
        return clientId + ':' + sequence.incrementAndGet();
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
