package io.latchkey.recipes;

/**
 * Told when this instance becomes leader and when it stops being leader. Both run on the executor given with the
 * listener, one call at a time and in order for one elector: {@code onRevoked} of a term never runs before that
 * term's {@code onElected}. A listener that throws is logged and does not stop the election.
 */
public interface ElectionListener {

    /**
     * This instance won the election; the term carries the fencing token to pass to the resources it writes.
     *
     * @param term the new term
     */
    default void onElected(Term term) {}

    /**
     * The term ended. By the time this runs, {@link Elector#isLeader()} is already false; when the reason is
     * {@link Revocation.Reason#LOST} another instance may already lead.
     *
     * @param term the term that ended
     * @param revocation why it ended
     */
    default void onRevoked(Term term, Revocation revocation) {}
}
