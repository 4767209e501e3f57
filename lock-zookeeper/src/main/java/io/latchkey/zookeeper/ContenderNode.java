package io.latchkey.zookeeper;

/**
 * One contender node in the store: the backend-private state of a {@link io.latchkey.spi.Grant}.
 *
 * @param path         the node's full path (parent + "/" + node name)
 * @param parent       the lock's container node
 * @param marker       the node-name prefix that identifies the owner (see {@link LockPaths#marker})
 * @param czxid        the zxid of the node's creation: the fencing token
 * @param sessionId    the session the ephemeral node belongs to (its {@code ephemeralOwner})
 */
record ContenderNode(String path, String parent, String marker, long czxid, long sessionId) {

    String nodeName() {
        return path.substring(parent.length() + 1);
    }
}
