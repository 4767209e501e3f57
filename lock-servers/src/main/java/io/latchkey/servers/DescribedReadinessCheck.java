package io.latchkey.servers;

/**
 * A readiness check paired with the text that failure messages show for it. Immutable.
 */
record DescribedReadinessCheck(String description, ReadinessCheck check) implements ReadinessCheck {

    @Override
    public boolean isReady(ServerProcess server) throws Exception {
        return check.isReady(server);
    }

    @Override
    public String toString() {
        return description;
    }
}
