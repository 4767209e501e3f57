package io.latchkey.servers;

import java.util.List;

/**
 * No declared option of a {@link ServerFixture} gave a server: says, in order, why each option was unavailable
 * and how a developer could make one work. The first launch failure, if any, is the cause and the others are
 * suppressed. What a caller does with it is an {@link UnavailablePolicy}: the CLI and benchmarks let it
 * propagate, the TCK turns it into a skipped (or, on CI, a failed) test.
 */
public final class ServerUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The server that could not be had. */
    private final String serverName;
    /** Why each way of getting it failed. */
    private final List<String> reasons;
    /** What to do about it. */
    private final List<String> hints;

    ServerUnavailableException(
            String serverName, List<String> reasons, List<String> hints, List<Throwable> launchFailures) {
        super(null, launchFailures.isEmpty() ? null : launchFailures.get(0));
        this.serverName = serverName;
        this.reasons = List.copyOf(reasons);
        this.hints = List.copyOf(hints);
        launchFailures.stream().skip(1).forEach(this::addSuppressed);
    }

    /**
     * What the server is, e.g. "redis".
     *
     * @return the name given to {@link ServerFixture#named(String)}
     */
    public String serverName() {
        return serverName;
    }

    /**
     * The full explanation with the caller's consequence after "No X server is available", e.g.
     * {@code ", so this test is skipped."}.
     *
     * @param consequence text that follows "is available", ending with a full stop
     * @return the message: the consequence, every option tried and why it failed, and the hints
     */
    public String explain(String consequence) {
        StringBuilder message = new StringBuilder("No ")
                .append(serverName)
                .append(" server is available")
                .append(consequence)
                .append(" Tried, in order:");
        for (int i = 0; i < reasons.size(); i++) {
            message.append("\n  ")
                    .append(i + 1)
                    .append(". ")
                    .append(reasons.get(i).replace("\n", "\n     "));
        }
        if (!hints.isEmpty()) {
            message.append("\nTo run it: ").append(String.join("; or ", hints)).append('.');
        }
        return message.toString();
    }

    @Override
    public String getMessage() {
        return explain(".");
    }
}
