package io.latchkey.etcd;

import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.LockLoss;
import io.latchkey.spi.RenewResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/*
 * Renewal of grants held as keys. The client's one lease keeps every key alive (EtcdRenewal sends its keep-alives,
 * one stream for all locks); a renewal proves that the grant's key is still there with its create revision (nobody
 * deleted it) and dates the grant's validity, never past the end the keeper has confirmed for the lease.
 *
 * - One grant: a key-only get of its key.
 * - Many grants (renewAll, the core's batched background renewal of exclusive grants): one transaction whose only
 *   branch is a key-only get per grant, so a client holding thousands of locks costs etcd one request per batch and
 *   renewal interval. BATCH stays below etcd's --max-txn-ops (128 by default).
 *
 * Stateless apart from final fields; thread-safe.
 */
final class KeyRenewal {
    /** Grants per transaction: etcd refuses a transaction of more than --max-txn-ops operations (default 128). */
    static final int BATCH = 100;

    private static final GetOption KEY_ONLY =
            GetOption.builder().withKeysOnly(true).build();

    private final KV kv;
    private final EtcdCalls calls;
    private final Contention contention;
    private final EtcdRenewal keeper;

    KeyRenewal(KV kv, EtcdCalls calls, Contention contention, EtcdRenewal keeper) {
        this.kv = kv;
        this.calls = calls;
        this.contention = contention;
        this.keeper = keeper;
    }

    RenewResult renew(HeldKey h, Duration lease) {
        long start = System.nanoTime();
        if (h.session() != null && !h.session().alive()) {
            return RenewResult.notHeld(LockLoss.Reason.SESSION_LOST);
        }
        GetResponse r = calls.await(kv.get(h.key(), KEY_ONLY), "renewing", h.name());
        return judge(h, r, start, lease);
    }

    List<RenewResult> renewAll(List<HeldKey> keys, List<Duration> leases) {
        int n = keys.size();
        long start = System.nanoTime();
        RenewResult[] out = new RenewResult[n];
        List<Op> gets = new ArrayList<>(n);
        int[] asked = new int[n];
        for (int i = 0; i < n; i++) {
            HeldKey h = keys.get(i);
            if (h.session() != null && !h.session().alive()) {
                out[i] = RenewResult.notHeld(LockLoss.Reason.SESSION_LOST);
            } else {
                asked[gets.size()] = i;
                gets.add(Op.get(h.key(), KEY_ONLY));
            }
        }
        if (!gets.isEmpty()) {
            String first = keys.get(asked[0]).name();
            TxnResponse r = calls.await(
                    kv.txn().Then(gets.toArray(new Op[0])).commit(),
                    "renewing " + gets.size() + " locks, among them",
                    first);
            List<GetResponse> got = r.getGetResponses();
            if (got.size() != gets.size()) {
                throw new IllegalStateException("etcd answered " + got.size() + " reads to a transaction of "
                        + gets.size() + " while renewing lock '" + first + "'");
            }
            for (int k = 0; k < got.size(); k++) {
                int i = asked[k];
                out[i] = judge(keys.get(i), got.get(k), start, leases.get(i));
            }
        }
        return Arrays.asList(out);
    }

    /** What a read of the grant's key, sent at {@code start}, says about the grant. */
    private RenewResult judge(HeldKey h, GetResponse r, long start, Duration lease) {
        boolean held = !r.getKvs().isEmpty() && r.getKvs().get(0).getCreateRevision() == h.revision();
        if (held && h.session() == null) {
            // a key of another client's lease, which nobody may keep alive: valid as long as etcd says it lives
            return RenewResult.renewed(contention.foreignValidUntil(r.getKvs().get(0).getLease(), start, lease, h.name()));
        }
        if (held && h.session().alive()) {
            // the key lives as long as the lease, which the keeper keeps alive (or reports lost before it ends):
            // valid for the lock's lease, but never past the end the keeper has confirmed for that lease
            return RenewResult.renewed(Contention.validUntil(h.session(), start, lease));
        }
        if (h.session() != null) {
            h.session().grants.remove(h);
            // the key is gone: with the client's lease (revoked, expired; the keeper may not know yet) or alone
            if (!h.session().alive() || !keeper.leaseExists(h.session().id, h.name())) {
                return RenewResult.notHeld(LockLoss.Reason.SESSION_LOST);
            }
        }
        return RenewResult.notHeld();
    }
}
