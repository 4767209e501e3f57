package io.latchkey.core;

/**
 * Checks lock names before anything reaches a store (docs/design.md §4.8): 1–255 bytes of UTF-8, no control
 * characters (U+0000–U+001F, U+007F–U+009F), well-formed UTF-16 (no lone surrogates, which UTF-8 cannot
 * carry). Everything else is a valid name and backends must encode it without escape or collision.
 */
public final class LockNames {
    public static final int MAX_UTF8_BYTES = 255;

    private LockNames() {}

    /** Returns the name if valid, else throws an {@link IllegalArgumentException} that says what is allowed. */
    public static String check(String name) {
        if (name == null) {
            throw new IllegalArgumentException(
                    "lock name must not be null; a name is 1-255 UTF-8 bytes without control characters");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException(
                    "lock name must not be empty; a name is 1-255 UTF-8 bytes without control characters");
        }
        int bytes = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
                throw new IllegalArgumentException(String.format(
                        "lock name must not contain control characters, found U+%04X at index %d in %s; "
                                + "control characters U+0000-U+001F and U+007F-U+009F are not allowed",
                        (int) c, i, quote(name)));
            }
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                if (i + 1 >= name.length() || !Character.isLowSurrogate(name.charAt(i + 1))) {
                    throw new IllegalArgumentException("lock name has an unpaired surrogate at index " + i
                            + " and cannot be encoded as UTF-8; pass well-formed text");
                }
                bytes += 4;
                i++;
            } else if (Character.isLowSurrogate(c)) {
                throw new IllegalArgumentException("lock name has an unpaired surrogate at index " + i
                        + " and cannot be encoded as UTF-8; pass well-formed text");
            } else {
                bytes += 3;
            }
            if (bytes > MAX_UTF8_BYTES) {
                throw new IllegalArgumentException("lock name is too long: more than " + MAX_UTF8_BYTES
                        + " UTF-8 bytes (" + name.length() + " chars, starting " + quote(name.substring(0, 20))
                        + "...); "
                        + "at most " + MAX_UTF8_BYTES + " bytes are allowed");
            }
        }
        return name;
    }

    /** The name quoted for messages, with control characters shown as escapes. */
    static String quote(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 2).append('\'');
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
                sb.append(String.format("\\u%04X", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('\'').toString();
    }
}
