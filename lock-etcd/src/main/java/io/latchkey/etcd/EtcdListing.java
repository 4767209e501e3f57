package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.latchkey.BackendUnavailableException;
import io.latchkey.LockInfo;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Reading the queues as an operator sees them: the holder of one lock (the lowest create revision under its
 * prefix), every lock under a name prefix, and force-release (a transaction that deletes the holder's key only
 * if it is still the same key revision). Stateless besides its collaborators; thread-safe.
 */
final class EtcdListing {
    private static final Logger log = LoggerFactory.getLogger(EtcdListing.class);
    private static final GetOption LOWEST = GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .withLimit(1)
            .build();

    private final KV kv;
    private final Lease leases;
    private final LockKeys keys;
    private final EtcdCalls calls;
    private final String description;

    EtcdListing(KV kv, Lease leases, LockKeys keys, EtcdCalls calls, String description) {
        this.kv = kv;
        this.leases = leases;
        this.keys = keys;
        this.calls = calls;
        this.description = description;
    }

    Optional<LockInfo> inspect(String name) {
        GetResponse r = calls.await(kv.get(keys.namePrefix(name), LOWEST), "inspecting", name);
        if (r.getKvs().isEmpty()) {
            return Optional.empty();
        }
        KeyValue holder = r.getKvs().get(0);
        Optional<Instant> expires = Optional.empty();
        try {
            LeaseTimeToLiveResponse ttl = calls.await(
                    leases.timeToLive(holder.getLease(), LeaseOption.DEFAULT), "reading the holder's lease", name);
            if (ttl.getTTL() > 0) {
                expires = Optional.of(Instant.now().plusSeconds(ttl.getTTL()));
            }
        } catch (BackendUnavailableException e) {
            log.debug("could not read the lease of the holder of '{}' on {}", name, description, e);
        }
        return Optional.of(new LockInfo(
                name,
                holder.getValue().toString(StandardCharsets.UTF_8),
                holder.getCreateRevision(),
                Optional.empty(),
                expires));
    }

    List<LockInfo> list(String prefix) {
        ByteSequence range = prefix.isEmpty() ? keys.all() : keys.namesStartingWith(prefix);
        GetResponse r =
                calls.await(kv.get(range, GetOption.builder().isPrefix(true).build()), "listing locks", null);
        Map<String, KeyValue> holders = new HashMap<>();
        for (KeyValue kvp : r.getKvs()) {
            String name = keys.nameOf(kvp.getKey());
            if (name == null || !name.startsWith(prefix)) {
                continue;
            }
            holders.merge(name, kvp, (a, b) -> a.getCreateRevision() <= b.getCreateRevision() ? a : b);
        }
        List<LockInfo> out = new ArrayList<>();
        holders.forEach((name, kvp) -> out.add(new LockInfo(
                name,
                kvp.getValue().toString(StandardCharsets.UTF_8),
                kvp.getCreateRevision(),
                Optional.empty(),
                Optional.empty())));
        out.sort(Comparator.comparing(LockInfo::name));
        return out;
    }

    boolean forceRelease(String name) {
        GetResponse r = calls.await(kv.get(keys.namePrefix(name), LOWEST), "force-releasing", name);
        if (r.getKvs().isEmpty()) {
            return false;
        }
        KeyValue holder = r.getKvs().get(0);
        boolean deleted = calls.await(
                        kv.txn()
                                .If(new Cmp(
                                        holder.getKey(),
                                        Cmp.Op.EQUAL,
                                        CmpTarget.createRevision(holder.getCreateRevision())))
                                .Then(Op.delete(holder.getKey(), DeleteOption.DEFAULT))
                                .commit(),
                        "force-releasing",
                        name)
                .isSucceeded();
        if (deleted) {
            log.info(
                    "Lock '{}' (token {}, owner {}) on {} was force-released",
                    name,
                    holder.getCreateRevision(),
                    holder.getValue().toString(StandardCharsets.UTF_8),
                    description);
        }
        return deleted;
    }
}
