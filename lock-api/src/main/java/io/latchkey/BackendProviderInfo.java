package io.latchkey;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A backend provider found on the class path by {@link Latchkey#providers(ClassLoader)}: the schemes it
 * serves, or, for one that failed to load, the schemes it would have served (when Latchkey knows them) and
 * one sentence saying why it failed. For tools that explain a URI before connecting, such as the CLI.
 *
 * @param className the provider class, or {@code "unknown"} when not even that could be read
 * @param schemes   the URI schemes, e.g. {@code redis}, {@code jdbc:postgresql}; may be empty for a failure
 * @param failure   why it failed to load (class, schemes, real cause), or {@code null} for a loaded provider
 */
public record BackendProviderInfo(
        String className, Set<String> schemes, @Nullable String failure) {

    /**
     * Copies the schemes; the class name is required.
     *
     * @param className the provider class, or {@code "unknown"}
     * @param schemes the URI schemes it serves, copied
     * @param failure why it failed to load, or {@code null}
     */
    public BackendProviderInfo {
        Objects.requireNonNull(className, "className");
        schemes = Set.copyOf(schemes);
    }

    /**
     * Whether the provider loaded and can create backends.
     *
     * @return {@code true} if there is no failure
     */
    public boolean loaded() {
        return failure == null;
    }

    /**
     * Why the provider failed to load.
     *
     * @return the sentence, empty for a loaded provider
     */
    public Optional<String> failureSentence() {
        return Optional.ofNullable(failure);
    }
}
