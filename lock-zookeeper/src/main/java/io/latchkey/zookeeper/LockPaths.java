package io.latchkey.zookeeper;

import io.latchkey.spi.GrantKind;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/*
 * Where locks live in the ZooKeeper tree, and how names and owners become path components.
 *
 *   <basePath>/<bucket>/<encoded name>/lk-<encoded owner>-<10-digit sequence>
 *
 * Buckets: a getChildren reply must fit in the client's packet limit (jute.maxbuffer, 1 MB by default), or the
 * client drops its connection and every lock it holds is at risk. With every name directly under the base, a
 * few thousand long names were enough. So the names are spread over BUCKETS (4096) container nodes, named by
 * the first 12 bits of the SHA-256 of the encoded name as three lower-case hex digits. The base then has at
 * most 4096 children of 3 characters (28 KB listed), and a bucket's listing costs at most 769 bytes per name
 * (4-byte length + a 765-character component), so one bucket holds 1,360 names of the longest kind within
 * 1 MB; spread evenly, the fullest of 4096 buckets reaches that only around 5 million such names (mean 1,220
 * plus 4 standard deviations), far more than one ensemble keeps in memory. list() still checks a bucket's
 * child count before reading it (see ZooKeeperLockBackend.list).
 *
 * Encoding: the UTF-8 bytes of the text, with A-Z a-z 0-9 '-' '_' '.' kept and every other byte written as
 * %XX (upper-case hex). A name that is exactly "." or ".." has its dots escaped too. The result is plain
 * ASCII, so it never contains a character ZooKeeper forbids (U+0000, controls, U+D800-F8FF, U+FFF0-FFFF),
 * never contains '/', is never empty, "." or "..", and decoding gives the name back, so two names never
 * share a component. "zookeeper" cannot be reserved here because the base path is never the root.
 *
 * Primitives. Exclusive locks live under the base path itself; read-write locks under <basePath>/rw and
 * semaphores under <basePath>/sem (one LockPaths each), so the three never meet and listing, which reads only
 * 3-hex-digit buckets, sees exclusive locks alone. A contender's name carries its grant's kind, so one getChildren
 * reply is enough to decide who is admitted:
 *
 *   lk-<owner>-<seq>             an exclusive lock
 *   rd-<owner>-<seq>             the read side of a read-write lock
 *   wr-<owner>-<seq>             the write side
 *   pm<n>x<limit>-<owner>-<seq>  n permits of a semaphore of `limit` permits (both decimal)
 *
 * The kind prefix never contains '-', so it ends at the node name's first '-' (an encoded owner may contain '-').
 *
 * Stateless and immutable: safe to share between threads.
 */
final class LockPaths {
    /** Prefix of every exclusive-lock node; children without one of the kind prefixes are ignored. */
    static final String NODE_PREFIX = "lk-";

    private static final String READ_PREFIX = "rd-";
    private static final String WRITE_PREFIX = "wr-";

    private static final int SEQUENCE_DIGITS = 10;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private static final char[] BUCKET_HEX = "0123456789abcdef".toCharArray();
    /** Number of bucket nodes under the base path (12 bits of the hash). */
    static final int BUCKETS = 4096;
    /** The most bytes one child costs in a getChildren reply: a 4-byte length and a 765-character component. */
    static final int MAX_CHILD_BYTES = 4 + 3 * 255;

    /** Orders contender nodes by the sequence number ZooKeeper appended, i.e. by arrival. */
    static final Comparator<String> BY_SEQUENCE = Comparator.comparingLong(LockPaths::sequence);

    private final String basePath;

    LockPaths(String basePath) {
        this.basePath = basePath;
    }

    String basePath() {
        return basePath;
    }

    /** The container node under which the contenders for {@code name} queue. */
    String parent(String name) {
        String component = encodeName(name);
        return basePath + "/" + bucketOf(component) + "/" + component;
    }

    /** The bucket node's path. */
    String bucketPath(String bucket) {
        return basePath + "/" + bucket;
    }

    /** The bucket of an encoded name component: the first 12 bits of its SHA-256, as 3 lower-case hex digits. */
    static String bucketOf(String component) {
        byte[] h = sha256().digest(component.getBytes(StandardCharsets.US_ASCII));
        int b = ((h[0] & 0xFF) << 4) | ((h[1] & 0xFF) >> 4);
        return new String(new char[] {BUCKET_HEX[b >> 8], BUCKET_HEX[(b >> 4) & 0xF], BUCKET_HEX[b & 0xF]});
    }

    /** Whether a child of the base path is a bucket this library wrote (nodes of another layout are skipped). */
    static boolean isBucket(String component) {
        if (component.length() != 3) {
            return false;
        }
        for (int i = 0; i < 3; i++) {
            char c = component.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The name a parent component stands for, or null if the component is not one of ours. */
    static String nameOf(String component) {
        try {
            return decode(component);
        } catch (IllegalArgumentException notOurs) {
            return null;
        }
    }

    /** What every exclusive-lock node of {@code owner} starts with; ZooKeeper appends the sequence. */
    static String marker(String owner) {
        return NODE_PREFIX + encode(owner) + "-";
    }

    /** What every node of {@code owner} for a grant of {@code kind} starts with. */
    static String marker(GrantKind kind, String owner) {
        String prefix = switch (kind.type()) {
            case EXCLUSIVE -> NODE_PREFIX;
            case READ -> READ_PREFIX;
            case WRITE -> WRITE_PREFIX;
            case PERMITS -> "pm" + kind.permits() + "x" + kind.limit() + "-";
        };
        return prefix + encode(owner) + "-";
    }

    /** The length of a node name's kind prefix (with its '-'), or -1 if the name has none of ours. */
    static int prefixLength(String node) {
        int dash = node.indexOf('-');
        if (dash == 2) {
            return node.startsWith(NODE_PREFIX) || node.startsWith(READ_PREFIX) || node.startsWith(WRITE_PREFIX)
                    ? 3
                    : -1;
        }
        if (dash < 0 || !node.startsWith("pm")) {
            return -1;
        }
        int x = node.indexOf('x', 2);
        return x > 2 && x < dash - 1 && isCount(node, 2, x) && isCount(node, x + 1, dash) ? dash + 1 : -1;
    }

    private static boolean isCount(String s, int from, int to) {
        if (to - from > 5) {
            return false; // GrantKind.MAX_PERMITS has 5 digits
        }
        for (int i = from; i < to; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Whether a contender is the write side of a read-write lock. */
    static boolean isWriter(String node) {
        return node.startsWith(WRITE_PREFIX);
    }

    /** The permits a semaphore contender asks for (1 for the other kinds). */
    static int permitsOf(String node) {
        return node.startsWith("pm") ? Integer.parseInt(node.substring(2, node.indexOf('x'))) : 1;
    }

    /** The permit count of the semaphore a contender was created for (1 for the other kinds). */
    static int limitOf(String node) {
        return node.startsWith("pm") ? Integer.parseInt(node.substring(node.indexOf('x') + 1, node.indexOf('-'))) : 1;
    }

    /** Whether {@code node} (a child name, not a path) is a contender node this library wrote. */
    static boolean isContender(String node) {
        int prefix = prefixLength(node);
        if (prefix < 0 || node.length() < prefix + 1 + SEQUENCE_DIGITS) {
            return false;
        }
        if (node.charAt(node.length() - SEQUENCE_DIGITS - 1) != '-') {
            return false;
        }
        for (int i = node.length() - SEQUENCE_DIGITS; i < node.length(); i++) {
            char c = node.charAt(i);
            if ((c < '0' || c > '9') && !(c == '-' && i == node.length() - SEQUENCE_DIGITS)) {
                return false;
            }
        }
        return true;
    }

    /** The owner id encoded in a contender node's name. */
    static String ownerOf(String node) {
        return decode(node.substring(prefixLength(node), node.length() - SEQUENCE_DIGITS - 1));
    }

    /** Whether a contender node was created for {@code marker}'s owner. */
    static boolean hasMarker(String node, String marker) {
        return node.length() == marker.length() + SEQUENCE_DIGITS && node.startsWith(marker);
    }

    /** The sequence number ZooKeeper appended (a signed 32-bit counter printed with 10 digits). */
    static long sequence(String node) {
        return Long.parseLong(node.substring(node.length() - SEQUENCE_DIGITS));
    }

    /** The contender nodes among a parent's children, in queue order. */
    static List<String> contenders(List<String> children) {
        List<String> out = new ArrayList<>(children.size());
        for (String c : children) {
            if (isContender(c)) {
                out.add(c);
            }
        }
        out.sort(BY_SEQUENCE);
        return out;
    }

    static String encodeName(String name) {
        if (name.equals(".") || name.equals("..")) {
            return name.replace(".", "%2E");
        }
        return encode(name);
    }

    static String encode(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(bytes.length + 8);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.') {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return sb.toString();
    }

    static String decode(String encoded) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                if (i + 2 >= encoded.length()) {
                    throw new IllegalArgumentException("truncated escape in '" + encoded + "'");
                }
                out.write(hex(encoded.charAt(i + 1)) << 4 | hex(encoded.charAt(i + 2)));
                i += 2;
            } else if (c < 0x80) {
                out.write(c);
            } else {
                throw new IllegalArgumentException("non-ASCII character in '" + encoded + "'");
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int hex(char c) {
        int v = Character.digit(c, 16);
        if (v < 0) {
            throw new IllegalArgumentException("bad hex digit '" + c + "'");
        }
        return v;
    }
}
