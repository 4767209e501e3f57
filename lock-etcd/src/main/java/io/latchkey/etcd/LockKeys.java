package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/*
 * Maps lock names to etcd keys: <namespace>/<hex of the name's UTF-8 bytes>/<lease id in hex>.
 *
 * Why hex: the per-name prefix "<namespace>/<hex>/" must be unambiguous, so that "a" never shares contenders
 * with "a/b" or "ab". Hex digits never contain '/', so the '/' after the name ends it; and hex keeps byte
 * prefixes as text prefixes, so list(prefix) is one range read over "<namespace>/<hex of prefix>". Every valid
 * name (1-255 UTF-8 bytes) becomes at most 510 characters. Stateless and thread-safe.
 */
final class LockKeys {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final String root; // "<namespace>/"

    LockKeys(String namespace) {
        this.root = namespace + "/";
    }

    /** Every key under the namespace. */
    ByteSequence all() {
        return bytes(root);
    }

    /** The prefix shared by the contenders of {@code name} and nothing else: {@code <ns>/<hex>/}. */
    ByteSequence namePrefix(String name) {
        return bytes(root + hex(name) + "/");
    }

    /** The prefix of every name that starts with {@code namePrefix} (no trailing '/'). */
    ByteSequence namesStartingWith(String namePrefix) {
        return bytes(root + hex(namePrefix));
    }

    /** This lease's contender key for {@code name}. */
    ByteSequence contender(String name, long leaseId) {
        return bytes(root + hex(name) + "/" + Long.toHexString(leaseId));
    }

    /** The lock name of a contender key under the namespace, or null if the key is not one of ours. */
    String nameOf(ByteSequence key) {
        String k = key.toString(StandardCharsets.UTF_8);
        if (!k.startsWith(root)) {
            return null;
        }
        int slash = k.indexOf('/', root.length());
        if (slash < 0) {
            return null;
        }
        return unhex(k.substring(root.length(), slash));
    }

    static String hex(String name) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        char[] out = new char[b.length * 2];
        for (int i = 0; i < b.length; i++) {
            out[2 * i] = HEX[(b[i] >> 4) & 0xF];
            out[2 * i + 1] = HEX[b[i] & 0xF];
        }
        return new String(out);
    }

    static String unhex(String hex) {
        if ((hex.length() & 1) != 0) {
            return null;
        }
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16);
            int lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                return null;
            }
            b[i] = (byte) ((hi << 4) | lo);
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "LockKeys[" + root + "]";
    }
}
