package io.latchkey.jdbc;

/**
 * One lock name as the database sees it: namespace, name, and the derived key of the database lock used in
 * session mode. The derived keys take two SHA-256 digests, so they are computed only when session mode asks
 * for them (lease mode, whose statements use namespace and name alone, never does) and then kept: the fields
 * are volatile references, and two threads racing to fill one compute the same value.
 */
final class LockKey {
    private final String table;
    private final String namespace;
    private final String name;
    private volatile Long advisoryKey;
    private volatile String userLockName;

    private LockKey(String table, String namespace, String name) {
        this.table = table;
        this.namespace = namespace;
        this.name = name;
    }

    static LockKey of(String table, String namespace, String name) {
        return new LockKey(table, namespace, name);
    }

    String namespace() {
        return namespace;
    }

    String name() {
        return name;
    }

    /** The 64-bit key of PostgreSQL's advisory lock for this name (session mode). */
    long advisoryKey() {
        Long k = advisoryKey;
        if (k == null) {
            k = SqlNames.advisoryKey(table, namespace, name);
            advisoryKey = k;
        }
        return k;
    }

    /** The GET_LOCK name for MySQL/MariaDB (session mode). */
    String userLockName() {
        String n = userLockName;
        if (n == null) {
            n = SqlNames.userLockName(table, namespace, name);
            userLockName = n;
        }
        return n;
    }

    /** High 32 bits of the advisory key, as PostgreSQL's pg_locks.classid shows it (unsigned). */
    long classId() {
        return advisoryKey() >>> 32;
    }

    /** Low 32 bits of the advisory key, as PostgreSQL's pg_locks.objid shows it (unsigned). */
    long objId() {
        return advisoryKey() & 0xffffffffL;
    }

    @Override
    public String toString() {
        return "LockKey[" + namespace + "/" + name + "]";
    }
}
