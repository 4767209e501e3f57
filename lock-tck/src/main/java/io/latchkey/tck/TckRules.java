package io.latchkey.tck;

/** What every rule group sees: the running test's context. Implemented by {@link LockBackendTck}. */
public interface TckRules {
    /**
     * The context of the running test: clients, names, settings, faults, history.
     *
     * @return the context
     */
    TckContext tck();
}
