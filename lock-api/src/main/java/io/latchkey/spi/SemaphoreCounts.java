package io.latchkey.spi;

/**
 * The one message every backend gives when a semaphore is opened with another permit count than the store holds
 * for its name (the count is part of a semaphore's identity, {@link GrantKind#limit()}). Stateless.
 */
public final class SemaphoreCounts {
    private SemaphoreCounts() {}

    /**
     * The refusal of a request for semaphore {@code name} on {@code backend} (its description) opened with
     * {@code asked} permits, where the store holds {@code stored}.
     *
     * @param name the semaphore's name
     * @param backend the backend's description
     * @param stored the permit count the store holds
     * @param asked the permit count the caller opened it with
     * @return the exception to throw
     */
    public static IllegalArgumentException conflict(String name, String backend, long stored, int asked) {
        return new IllegalArgumentException("semaphore '" + name + "' on " + backend + " has " + stored
                + " permits in the store, but this view was opened with " + asked
                + "; the permit count is part of a semaphore's identity");
    }
}
