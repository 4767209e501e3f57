package io.latchkey.servers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Several {@link ServerProcess}es controlled as one server, e.g. the members of an etcd cluster: pause, resume,
 * kill and stop go to each in turn; starts run in parallel, because members of a quorum are not ready until
 * enough of them run to elect a leader. Closing closes every member.
 *
 * <p>Concurrency: the members serialise their own lifecycles; a start uses a short-lived pool of one thread
 * per member, shut down before {@link #startAll} returns.
 */
public final class ProcessGroup implements ServerControl, AutoCloseable {

    private final List<ServerProcess> members;
    private final Duration startTimeout;

    /**
     * A group of built (not necessarily started) processes.
     *
     * @param members the processes, at least one
     * @param startTimeout how long a parallel start may take in all
     */
    public ProcessGroup(List<ServerProcess> members, Duration startTimeout) {
        if (members == null || members.isEmpty()) {
            throw new IllegalArgumentException("a process group needs at least one member, was " + members);
        }
        this.members = List.copyOf(members);
        this.startTimeout = startTimeout;
    }

    /**
     * The members, in the order given.
     *
     * @return an immutable list
     */
    public List<ServerProcess> members() {
        return members;
    }

    /**
     * Starts every member in parallel and waits until all are ready; if one fails, every member is closed.
     *
     * @throws Exception the first member's failure
     */
    public void startAll() throws Exception {
        try {
            startInParallel();
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private void startInParallel() throws Exception {
        ExecutorService starter = Executors.newFixedThreadPool(members.size());
        try {
            List<Future<?>> started = new ArrayList<>();
            for (ServerProcess m : members) {
                started.add(starter.submit(() -> {
                    m.start();
                    return null;
                }));
            }
            for (Future<?> f : started) {
                f.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            starter.shutdownNow();
        }
    }

    @Override
    public void pause() {
        members.forEach(ServerProcess::pause);
    }

    @Override
    public void resume() {
        members.forEach(ServerProcess::resume);
    }

    @Override
    public void kill() {
        members.forEach(ServerProcess::kill);
    }

    @Override
    public void stop() {
        members.forEach(ServerProcess::stop);
    }

    /** Stops every member, then starts them all in parallel. */
    @Override
    public void restart() {
        stop();
        try {
            startInParallel();
        } catch (Exception e) {
            throw new IllegalStateException("restarting " + members.size() + " server(s) failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isAlive() {
        return members.stream().allMatch(ServerProcess::isAlive);
    }

    @Override
    public void close() {
        members.forEach(ServerProcess::close);
    }
}
