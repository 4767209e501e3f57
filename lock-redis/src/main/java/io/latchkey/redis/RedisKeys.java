package io.latchkey.redis;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/*
 * Key layout. A lock name becomes the lower-case hex of its UTF-8 bytes inside a hash tag, so that
 *
 *   <prefix>{<hex>}:lock    the grant: value = owner id, PX = lease (SET NX PX)
 *   <prefix>{<hex>}:fence   the fencing counter (INCR); never deleted, so tokens never go back
 *   <prefix>{<hex>}:wake    the wake list: a release pushes one element, a waiter BLPOPs it
 *   <prefix>{<hex>}:waiting a flag with a TTL, set by a busy acquire: a release pushes to the wake list only
 *                           when someone waits, so an uncontended cycle never touches the wake list
 *   <prefix>{<hex>}:sem, :sem-expiries, :sem-wake, :sem-waiting
 *                           the semaphore of that name (a namespace apart from the lock): see RedisScripts
 *   <prefix>{<hex>}:rw, :rw-readers, :rw-intents, :rw-wake, :rw-waiting
 *                           the read-write lock of that name: see RedisScripts
 *
 * share one cluster slot, and no name can look like another name's key: hex has no braces, colons, glob
 * characters or spaces, and "a:fence" encodes to a different tag than "a". Hex also keeps prefixes: the
 * hex of a name prefix is a prefix of the hex of every name starting with it, so SCAN MATCH can list by
 * prefix. Stateless and thread-safe.
 */
final class RedisKeys {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LOCK_SUFFIX = "}:lock".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FENCE_SUFFIX = "}:fence".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WAKE_SUFFIX = "}:wake".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WAITING_SUFFIX = "}:waiting".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SEM_STATE_SUFFIX = "}:sem".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SEM_EXPIRIES_SUFFIX = "}:sem-expiries".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SEM_WAKE_SUFFIX = "}:sem-wake".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SEM_WAITING_SUFFIX = "}:sem-waiting".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RW_STATE_SUFFIX = "}:rw".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RW_READERS_SUFFIX = "}:rw-readers".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RW_INTENTS_SUFFIX = "}:rw-intents".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RW_WAKE_SUFFIX = "}:rw-wake".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RW_WAITING_SUFFIX = "}:rw-waiting".getBytes(StandardCharsets.US_ASCII);

    private final String prefix;
    private final byte[] prefixAndBrace;

    RedisKeys(String prefix) {
        this.prefix = prefix;
        this.prefixAndBrace = (prefix + "{").getBytes(StandardCharsets.UTF_8);
    }

    /** The keys of one name. */
    record NameKeys(byte[] lock, byte[] fence, byte[] wake, byte[] waiting) {}

    /** The keys of one semaphore: its state hash, holders' expiries, wake list and waiting flag. */
    record SemaphoreKeys(byte[] state, byte[] expiries, byte[] wake, byte[] waiting) {}

    SemaphoreKeys semaphore(String name) {
        byte[] tag = tag(name);
        return new SemaphoreKeys(
                concat(tag, SEM_STATE_SUFFIX),
                concat(tag, SEM_EXPIRIES_SUFFIX),
                concat(tag, SEM_WAKE_SUFFIX),
                concat(tag, SEM_WAITING_SUFFIX));
    }

    /** The keys of one read-write lock: state hash, readers' expiries, writers' intents, wake list, waiting flag. */
    record ReadWriteKeys(byte[] state, byte[] readers, byte[] intents, byte[] wake, byte[] waiting) {}

    ReadWriteKeys readWrite(String name) {
        byte[] tag = tag(name);
        return new ReadWriteKeys(
                concat(tag, RW_STATE_SUFFIX),
                concat(tag, RW_READERS_SUFFIX),
                concat(tag, RW_INTENTS_SUFFIX),
                concat(tag, RW_WAKE_SUFFIX),
                concat(tag, RW_WAITING_SUFFIX));
    }

    private byte[] tag(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        byte[] tag = new byte[prefixAndBrace.length + utf8.length * 2];
        writeTag(utf8, tag);
        return tag;
    }

    /** Writes prefix + "{" + the name's bytes in hex into the start of {@code into}; returns where it ends. */
    private int writeTag(byte[] utf8, byte[] into) {
        System.arraycopy(prefixAndBrace, 0, into, 0, prefixAndBrace.length);
        int at = prefixAndBrace.length;
        for (byte b : utf8) {
            into[at++] = HEX[(b >> 4) & 0xF];
            into[at++] = HEX[b & 0xF];
        }
        return at;
    }

    /**
     * The keys of one name. The keys of recently used names are kept in a small direct-mapped cache (a name's slot
     * holds the last name that hashed there), so a lock taken again and again builds its four keys once; a name that
     * misses costs one slot write. The entries are immutable, so a racy slot read sees either a whole entry or
     * another name's (then the keys are built again), never a torn one.
     */
    NameKeys of(String name) {
        int slot = name.hashCode() & (CACHED_NAMES - 1);
        CachedKeys cached = cache[slot];
        if (cached != null && cached.name.equals(name)) {
            return cached.keys;
        }
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        NameKeys keys = new NameKeys(
                key(utf8, LOCK_SUFFIX), key(utf8, FENCE_SUFFIX), key(utf8, WAKE_SUFFIX), key(utf8, WAITING_SUFFIX));
        cache[slot] = new CachedKeys(name, keys);
        return keys;
    }

    /** Slots of the name cache: at most this many names' keys (a few hundred bytes each) are kept. */
    private static final int CACHED_NAMES = 256;

    private final CachedKeys[] cache = new CachedKeys[CACHED_NAMES];

    private static final class CachedKeys {
        final String name;
        final NameKeys keys;

        CachedKeys(String name, NameKeys keys) {
            this.name = name;
            this.keys = keys;
        }
    }

    private byte[] key(byte[] utf8, byte[] suffix) {
        byte[] key = new byte[prefixAndBrace.length + utf8.length * 2 + suffix.length];
        int at = writeTag(utf8, key);
        System.arraycopy(suffix, 0, key, at, suffix.length);
        return key;
    }

    /** A SCAN MATCH pattern for the lock keys of every name starting with {@code namePrefix}. */
    String lockPattern(String namePrefix) {
        StringBuilder sb = new StringBuilder();
        for (char c : prefix.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append('{');
        for (byte b : namePrefix.getBytes(StandardCharsets.UTF_8)) {
            sb.append((char) HEX[(b >> 4) & 0xF]).append((char) HEX[b & 0xF]);
        }
        return sb.append("*}:lock").toString();
    }

    /** The name a lock key stands for, or empty if the key is not one of ours. */
    Optional<String> nameOfLockKey(byte[] key) {
        String k = new String(key, StandardCharsets.UTF_8);
        if (!k.startsWith(prefix + "{") || !k.endsWith("}:lock")) {
            return Optional.empty();
        }
        String hex = k.substring(prefix.length() + 1, k.length() - "}:lock".length());
        if (hex.isEmpty() || hex.length() % 2 != 0) {
            return Optional.empty();
        }
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16);
            int lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                return Optional.empty();
            }
            out[i] = (byte) ((hi << 4) | lo);
        }
        return Optional.of(new String(out, StandardCharsets.UTF_8));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
