package io.latchkey.zookeeper;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/*
 * The ACL of every node a backend-built client creates: Curator asks getAclForPath for each node, the parents it
 * creates on the way included. Two kinds of node:
 *
 *   shared   the base path and its ancestors, <base>/rw, <base>/sem and the 3-hex-digit buckets under each: nodes
 *            every application on this base path passes through;
 *   lock     a lock's node (<bucket>/<name>) and the contenders under it: one application's.
 *
 * With `creator` (the default for an authenticated client) a lock node may be changed only by the identity that
 * created it: ALL for the creator's authenticated ids (ZooKeeper's "auth" scheme), READ for anyone. ZooKeeper checks
 * DELETE and CREATE on the PARENT, so a contender can be deleted only by its lock node's creator, and a lock node only
 * by its bucket's; a shared node adds CREATE for anyone, so that another identity can lock other names under the same
 * base path (its own lock nodes are then its own), but it cannot delete anyone's nodes. `open` is ZooKeeper's
 * OPEN_ACL_UNSAFE (the only choice without authentication); an explicit list is used for every node.
 *
 * Immutable; safe to share between threads.
 */
final class ZooKeeperAcls implements ACLProvider {
    /** The forms the acl setting accepts, for messages. */
    static final String FORMS = "auto, creator, open, or a list of scheme:id:perms entries separated by ','"
            + " (perms from cdrwa, e.g. digest:app:HASH=:cdrwa,world:anyone:r)";

    private static final ACL CREATOR_ALL = new ACL(ZooDefs.Perms.ALL, ZooDefs.Ids.AUTH_IDS);
    private static final List<ACL> CREATOR_LOCK =
            list(CREATOR_ALL, new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
    private static final List<ACL> CREATOR_SHARED =
            list(CREATOR_ALL, new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, ZooDefs.Ids.ANYONE_ID_UNSAFE));

    private final String basePath;
    private final List<ACL> lock;
    private final List<ACL> shared;

    private ZooKeeperAcls(String basePath, List<ACL> lock, List<ACL> shared) {
        this.basePath = basePath;
        this.lock = lock;
        this.shared = shared;
    }

    /**
     * The ACLs for a client on {@code basePath}.
     *
     * @param setting the acl setting (checked by {@link #check(String)})
     * @param authenticated whether the client authenticates (a digest in the URI)
     * @throws IllegalArgumentException for {@code creator} without authentication
     */
    static ZooKeeperAcls of(String setting, boolean authenticated, String basePath) {
        String s = setting.trim().toLowerCase(Locale.ROOT);
        if (s.equals("auto")) {
            s = authenticated ? "creator" : "open";
        }
        switch (s) {
            case "open":
                return new ZooKeeperAcls(basePath, ZooDefs.Ids.OPEN_ACL_UNSAFE, ZooDefs.Ids.OPEN_ACL_UNSAFE);
            case "creator":
                if (!authenticated) {
                    throw new IllegalArgumentException("acl=creator needs an authenticated client: give user:password@"
                            + " in the zookeeper URI (digest), or acl=open");
                }
                return new ZooKeeperAcls(basePath, CREATOR_LOCK, CREATOR_SHARED);
            default:
                List<ACL> list = parseList(setting);
                return new ZooKeeperAcls(basePath, list, list);
        }
    }

    /** Checks the acl setting's form; returns it. */
    static String check(String setting) {
        if (setting == null || setting.isBlank()) {
            throw new IllegalArgumentException("acl must be " + FORMS + "; was empty");
        }
        String s = setting.trim().toLowerCase(Locale.ROOT);
        if (!s.equals("auto") && !s.equals("open") && !s.equals("creator")) {
            parseList(setting);
        }
        return setting.trim();
    }

    private static List<ACL> parseList(String setting) {
        List<ACL> out = new ArrayList<>();
        for (String entry : setting.split(",")) {
            String e = entry.trim();
            int first = e.indexOf(':');
            int last = e.lastIndexOf(':');
            if (first <= 0 || last == first) {
                throw new IllegalArgumentException("acl entry '" + e + "' is not scheme:id:perms; acl must be " + FORMS);
            }
            String perms = e.substring(last + 1);
            int mask = 0;
            for (char c : perms.toCharArray()) {
                int bit = "cdrwa".indexOf(c);
                if (bit < 0) {
                    throw new IllegalArgumentException("acl entry '" + e + "' has perms '" + perms
                            + "'; perms are letters from cdrwa (create, delete, read, write, admin)");
                }
                mask |= switch (c) {
                    case 'c' -> ZooDefs.Perms.CREATE;
                    case 'd' -> ZooDefs.Perms.DELETE;
                    case 'r' -> ZooDefs.Perms.READ;
                    case 'w' -> ZooDefs.Perms.WRITE;
                    default -> ZooDefs.Perms.ADMIN;
                };
            }
            if (mask == 0) {
                throw new IllegalArgumentException(
                        "acl entry '" + e + "' gives no permission; perms are letters from cdrwa");
            }
            out.add(new ACL(mask, new Id(e.substring(0, first), e.substring(first + 1, last))));
        }
        return list(out.toArray(new ACL[0]));
    }

    /**
     * An unmodifiable list that answers contains(null): ZooKeeper's create asks it, and List.of's lists throw a
     * NullPointerException there.
     */
    private static List<ACL> list(ACL... acls) {
        return Collections.unmodifiableList(new ArrayList<>(Arrays.asList(acls)));
    }

    @Override
    public List<ACL> getDefaultAcl() {
        return lock;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
        return isShared(path) ? shared : lock;
    }

    /** The base path or above it, <base>/rw, <base>/sem, or a bucket directly under one of those three. */
    boolean isShared(String path) {
        if (path == null || basePath.equals(path) || basePath.startsWith(path + "/")) {
            return true;
        }
        if (!path.startsWith(basePath + "/")) {
            return false;
        }
        String[] rest = path.substring(basePath.length() + 1).split("/");
        boolean area = rest[0].equals("rw") || rest[0].equals("sem");
        if (rest.length == 1) {
            return area || isBucket(rest[0]);
        }
        return rest.length == 2 && area && isBucket(rest[1]);
    }

    private static boolean isBucket(String component) {
        return component.length() == 3 && component.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }
}
