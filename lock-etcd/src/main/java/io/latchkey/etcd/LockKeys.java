package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.latchkey.spi.GrantKind;
import java.nio.charset.StandardCharsets;

/*
 * Maps lock names to etcd keys: <namespace>/<hex of the name's UTF-8 bytes>/<lease id in hex>.
 *
 * Why hex: the per-name prefix "<namespace>/<hex>/" must be unambiguous, so that "a" never shares contenders
 * with "a/b" or "ab". Hex digits never contain '/', so the '/' after the name ends it; and hex keeps byte
 * prefixes as text prefixes, so list(prefix) is one range read over "<namespace>/<hex of prefix>". Every valid
 * name (1-255 UTF-8 bytes) becomes at most 510 characters.
 *
 * Read-write locks and semaphores queue apart from locks, one key per acquisition (a client may hold several
 * reads or permits of one name at once, so the lease id alone is not unique):
 *
 *   <namespace>/rw/<hex name>/r/<lease id>/<hex owner>    a reader     (value: the owner id)
 *   <namespace>/rw/<hex name>/w/<lease id>/<hex owner>    a writer     (value: the owner id)
 *   <namespace>/rw/<hex name>/d/<lease id>/<hex owner>    a reader made by downgrading a writer
 *   <namespace>/sem/<hex name>/<lease id>/<hex owner>     a semaphore contender (value: "<permits>/<limit>")
 *
 * "rw" and "sem" are not hex, so nameOf (and with it list) never takes them for lock names. Stateless and
 * thread-safe.
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

    /** The queue of the read-write lock or semaphore {@code name} (both sides, or every contender). */
    ByteSequence sharedQueue(GrantKind kind, String name) {
        return bytes(sharedRoot(kind, name));
    }

    /** The writers of the read-write lock {@code name}. */
    ByteSequence writers(String name) {
        return bytes(root + "rw/" + hex(name) + "/w/");
    }

    /** The keys of read grants made by downgrading a write grant (they keep writers out, not readers). */
    ByteSequence downgraded(String name) {
        return bytes(root + "rw/" + hex(name) + "/d/");
    }

    /** The key of a read grant made by downgrading a write grant. */
    ByteSequence downgradedContender(String name, long leaseId, String owner) {
        return bytes(root + "rw/" + hex(name) + "/d/" + Long.toHexString(leaseId) + "/" + hex(owner));
    }

    /** The key of one acquisition of a read-write lock side or of permits. */
    ByteSequence sharedContender(GrantKind kind, String name, long leaseId, String owner) {
        String side = switch (kind.type()) {
            case READ -> "r/";
            case WRITE -> "w/";
            default -> "";
        };
        return bytes(sharedRoot(kind, name) + side + Long.toHexString(leaseId) + "/" + hex(owner));
    }

    private String sharedRoot(GrantKind kind, String name) {
        return root + (kind.type() == GrantKind.Type.PERMITS ? "sem/" : "rw/") + hex(name) + "/";
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
