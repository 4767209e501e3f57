package io.latchkey.mongodb;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/*
 * The store's commands, nothing else. One document per name:
 *
 *   { _id: <namespace + name>, owner: <owner id>, token: <long>, since: <server date>, leaseMs: <long>,
 *     acquiredAt: <server date> }
 *
 * A grant is live while since + leaseMs is after the server's $$NOW: every decision about expiry is made by the
 * server's clock, inside the filter of the write that depends on it, never by a client's. since is stamped with
 * $currentDate (the server's clock) by the grant and by every renewal. The document outlives its grants: release and
 * forceRelease unset owner and keep token, so a name's token rises across release, expiry and forced release.
 *
 * Acquire is one findOneAndUpdate on "this id, and (no owner, or expired)": it takes a free or expired document in
 * one atomic write, and matches nothing when the name is held or has no document yet. A name's document is created
 * once, free, by an upsert whose filter is the id alone ($setOnInsert: it never touches an existing document), and the
 * grant is tried again. Not one upsert with the expiry in its filter: MongoDB refuses $expr in an upsert's query
 * (error 224, SERVER-59704), though mongo-java-server accepts it (MongoRoundTripTest checks that no upsert carries
 * $expr). Not an update pipeline ($$NOW in $set, one round trip even for a new name): mongo-java-server, the only
 * server CI can run, has none. Every filter is classic query language plus $expr with $$NOW (MongoDB 4.2+); the
 * updates are classic operators.
 */
final class MongoStatements {
    /** Live: an owner, and since + leaseMs after the server's now. */
    static final Bson HELD = Filters.and(
            Filters.exists("owner", true),
            Filters.expr(new Document("$gt", List.of(new Document("$add", List.of("$since", "$leaseMs")), "$$NOW"))));

    private static final Bson FREE = Filters.or(
            Filters.exists("owner", false),
            Filters.expr(new Document("$lte", List.of(new Document("$add", List.of("$since", "$leaseMs")), "$$NOW"))));

    static final com.mongodb.client.model.UpdateOptions CREATE_OPTIONS =
            new com.mongodb.client.model.UpdateOptions().upsert(true);

    static final FindOneAndUpdateOptions WRITE_OPTIONS = new FindOneAndUpdateOptions()
            .returnDocument(ReturnDocument.AFTER)
            .projection(Projections.include("token"));

    static final Bson INFO = Projections.include("owner", "token", "since", "leaseMs", "acquiredAt");

    private static final Bson VACATE = Updates.combine(Updates.unset("owner"), Updates.unset("since"),
            Updates.unset("leaseMs"), Updates.unset("acquiredAt"));

    private MongoStatements() {}

    /** The filter of a new grant: the name's document, free or expired. */
    static Bson grantable(String id) {
        return Filters.and(Filters.eq("_id", id), FREE);
    }

    /** A new grant: the owner, the lease from the server's now, the next token. */
    static Bson grant(String owner, long leaseMs) {
        return Updates.combine(
                Updates.set("owner", owner),
                Updates.set("leaseMs", leaseMs),
                Updates.currentDate("since"),
                Updates.currentDate("acquiredAt"),
                Updates.inc("token", 1L));
    }

    /** The live grant of this owner (any token): the same owner's retry after a reply it never saw. */
    static Bson heldBy(String id, String owner) {
        return Filters.and(Filters.eq("_id", id), Filters.eq("owner", owner), HELD);
    }

    /** The live grant of this owner and token: renew, release. */
    static Bson heldExactly(String id, String owner, long token) {
        return Filters.and(Filters.eq("_id", id), Filters.eq("owner", owner), Filters.eq("token", token), HELD);
    }

    /** The name's live grant, whoever holds it. */
    static Bson held(String id) {
        return Filters.and(Filters.eq("_id", id), HELD);
    }

    /** The live grants whose id starts with {@code idPrefix}, taken literally. */
    static Bson heldUnder(String idPrefix) {
        return Filters.and(Filters.regex("_id", "^" + literal(idPrefix)), HELD);
    }

    /** The name's document, whatever it holds: the filter of its creation. */
    static Bson document(String id) {
        return Filters.eq("_id", id);
    }

    /** Creates the name's document, free, with token 0; changes nothing in an existing one. */
    static Bson create() {
        return Updates.setOnInsert("token", 0L);
    }

    /** Restarts the lease from the server's now. */
    static Bson extend(long leaseMs) {
        return Updates.combine(Updates.currentDate("since"), Updates.set("leaseMs", leaseMs));
    }

    /** Frees the name and keeps its token. */
    static Bson vacate() {
        return VACATE;
    }

    /** A regular expression that matches {@code text} literally: every character outside [A-Za-z0-9] escaped. */
    static String literal(String text) {
        StringBuilder sb = new StringBuilder(text.length() * 2);
        text.codePoints().forEach(cp -> {
            if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp > 0x7F) {
                sb.appendCodePoint(cp);
            } else {
                sb.append(String.format("\\x%02x", cp)); // PCRE and java.util.regex both read \xhh
            }
        });
        return sb.toString();
    }
}
