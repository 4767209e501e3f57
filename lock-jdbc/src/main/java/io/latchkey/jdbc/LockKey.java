package io.latchkey.jdbc;

/**
 * One lock name as the database sees it: namespace, name, and the derived key of the database lock used in
 * session mode. Immutable.
 */
record LockKey(String namespace, String name, long advisoryKey, String userLockName) {

    static LockKey of(String table, String namespace, String name) {
        return new LockKey(namespace, name, SqlNames.advisoryKey(table, namespace, name),
                SqlNames.userLockName(table, namespace, name));
    }

    /** High 32 bits of the advisory key, as PostgreSQL's pg_locks.classid shows it (unsigned). */
    long classId() {
        return advisoryKey >>> 32;
    }

    /** Low 32 bits of the advisory key, as PostgreSQL's pg_locks.objid shows it (unsigned). */
    long objId() {
        return advisoryKey & 0xffffffffL;
    }
}
