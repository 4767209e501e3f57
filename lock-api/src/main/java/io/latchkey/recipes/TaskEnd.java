package io.latchkey.recipes;

/** What {@link ExclusiveTasks} does with a key's lock when its task returns by itself. */
public enum TaskEnd {
    /** Release the lock: another instance may run the task next. */
    RELEASE,
    /** Keep holding the lock (renewed) until {@code stop(key)}, {@code close()}, or its loss: the task ran once. */
    KEEP_HOLDING
}
