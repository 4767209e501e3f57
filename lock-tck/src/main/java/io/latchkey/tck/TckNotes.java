package io.latchkey.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/*
 * What the rules of this JVM noted for the report: each rule's FIGURE lines and the backend it ran on, keyed by
 * "class#method". The TCK runs its rules one at a time in a JVM (a surefire fork, the CLI's launcher), so the rule
 * being noted is the one whose context opened last; a helper thread of that rule notes under the same key.
 * TckReport takes a rule's notes when the rule finishes. Thread-safe: a concurrent map of synchronized lists.
 */
final class TckNotes {
    record Note(String backend, List<String> figures) {}

    private static final int STALE_LIMIT = 1_000;
    private static final Map<String, Note> notes = new ConcurrentHashMap<>();
    private static volatile String current;

    private TckNotes() {}

    static String key(String className, String method) {
        return className + "#" + method;
    }

    static void ruleStarted(String className, String method) {
        if (notes.size() > STALE_LIMIT) {
            // rules run without a TckReport (a test kit's engine, a report turned off) leave notes nobody takes
            notes.clear();
        }
        String key = key(className, method);
        notes.put(key, new Note(null, java.util.Collections.synchronizedList(new ArrayList<>())));
        current = key;
    }

    static void backend(String description) {
        String key = current;
        if (key != null) {
            notes.computeIfPresent(key, (k, n) -> n.backend() == null ? new Note(description, n.figures()) : n);
        }
    }

    static void figure(String text) {
        String key = current;
        Note n = key == null ? null : notes.get(key);
        if (n != null) {
            n.figures().add(text);
        }
    }

    /** The notes of a finished rule, removed; empty notes if it noted nothing (or was skipped before starting). */
    static Note take(String className, String method) {
        Note n = notes.remove(key(className, method));
        return n == null ? new Note(null, List.of()) : new Note(n.backend(), List.copyOf(n.figures()));
    }
}
