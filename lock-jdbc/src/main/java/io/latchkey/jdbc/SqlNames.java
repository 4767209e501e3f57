package io.latchkey.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Pattern;

/*
 * Validation of the identifiers Latchkey puts into SQL text (table names, namespaces) and the derivation of
 * database-lock keys from lock names. Lock names themselves never enter SQL text: they are always bound as
 * parameters. Stateless.
 */
final class SqlNames {
    /** {@code table} or {@code schema.table}; each part a plain unquoted identifier of at most 48 characters. */
    private static final Pattern TABLE =
            Pattern.compile("(?:[A-Za-z_][A-Za-z0-9_]{0,47}\\.)?[A-Za-z_][A-Za-z0-9_]{0,47}");

    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9_.:-]{0,64}");
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private SqlNames() {}

    static String checkTable(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be an SQL identifier (letters, digits, '_', not starting "
                    + "with a digit, at most 48 characters), optionally qualified by a schema as 'schema.table'; was "
                    + (table == null ? "null" : "'" + table.replaceAll("\\p{Cntrl}", "?") + "'"));
        }
        return table;
    }

    static String checkNamespace(String namespace) {
        if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
            throw new IllegalArgumentException(
                    "namespace must be 0 to 64 characters of letters, digits, '_', '.', ':' " + "or '-'; was "
                            + (namespace == null ? "null" : "'" + namespace.replaceAll("\\p{Cntrl}", "?") + "'"));
        }
        return namespace;
    }

    /** SHA-256 of table, namespace and name, separated by NUL (which none of them can contain). */
    static byte[] digest(String table, String namespace, String name) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(table.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update(namespace.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update(name.getBytes(StandardCharsets.UTF_8));
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A 64-bit key for PostgreSQL advisory locks: the first 8 bytes of the digest. */
    static long advisoryKey(String table, String namespace, String name) {
        byte[] d = digest(table, namespace, name);
        long k = 0;
        for (int i = 0; i < 8; i++) {
            k = (k << 8) | (d[i] & 0xff);
        }
        return k;
    }

    /** A GET_LOCK name for MySQL/MariaDB (at most 64 characters, case-insensitive safe): "lk_" + 240 bits in hex. */
    static String userLockName(String table, String namespace, String name) {
        byte[] d = digest(table, namespace, name);
        StringBuilder sb = new StringBuilder(63).append("lk_");
        for (int i = 0; i < 30; i++) {
            sb.append(HEX[(d[i] >> 4) & 0xf]).append(HEX[d[i] & 0xf]);
        }
        return sb.toString();
    }

    /** A LIKE pattern matching every name that starts with {@code prefix}, escaped with '!'. */
    static String likePrefix(String prefix) {
        StringBuilder sb = new StringBuilder(prefix.length() + 8);
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c == '!' || c == '%' || c == '_') {
                sb.append('!');
            }
            sb.append(c);
        }
        return sb.append('%').toString();
    }
}
