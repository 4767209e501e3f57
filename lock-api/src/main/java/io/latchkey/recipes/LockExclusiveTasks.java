package io.latchkey.recipes;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockInfo;
import io.latchkey.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/*
 * ExclusiveTasks: a map from key to its KeyedTask. A key's entry is added by start() through the map's own
 * compute (so two starts of one key cannot both win) and removed by the KeyedTask itself when it reaches a final
 * state (remove(key, task), so a later start's entry is never removed by an earlier task). close() flips `closed`
 * first, so no start() can add an entry it would miss, then stops every task and waits within one deadline.
 */
final class LockExclusiveTasks implements ExclusiveTasks {
    private final LockClient client;
    private final LockOptions options;
    private final String prefix;
    private final @Nullable Duration retryEvery;
    private final TaskEnd taskEnd;
    private final Duration stopTimeout;
    private final ConcurrentHashMap<String, KeyedTask> tasks = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    LockExclusiveTasks(
            LockClient client,
            LockOptions options,
            String prefix,
            @Nullable Duration retryEvery,
            TaskEnd taskEnd,
            Duration stopTimeout) {
        this.client = client;
        this.options = options;
        this.prefix = prefix;
        this.retryEvery = retryEvery;
        this.taskEnd = taskEnd;
        this.stopTimeout = stopTimeout;
    }

    @Override
    public TaskHandle start(String key, ExclusiveTask task) {
        if (key == null || task == null) {
            throw new IllegalArgumentException("key and task must not be null");
        }
        String name = Latchkey.checkLockName(prefix + key);
        KeyedTask started = tasks.compute(key, (k, existing) -> {
            if (closed.get()) {
                throw new IllegalStateException("exclusive tasks on " + client.backend() + " are closed");
            }
            if (existing != null && !existing.state().isFinal()) {
                throw new IllegalStateException(
                        "task '" + key + "' was already started here and is " + existing.state() + "; stop it first");
            }
            return new KeyedTask(
                    key, client.lock(name, options), task, retryEvery, taskEnd, stopTimeout, this::finished);
        });
        return started.start();
    }

    private void finished(KeyedTask task) {
        tasks.remove(task.key(), task);
    }

    @Override
    public boolean stop(String key) {
        KeyedTask task = tasks.get(key);
        return task != null && task.stop();
    }

    @Override
    public Set<String> holding() {
        Set<String> keys = new TreeSet<>();
        tasks.forEach((key, task) -> {
            if (task.lock().isPresent()) {
                keys.add(key);
            }
        });
        return keys;
    }

    @Override
    public Set<String> lockedEverywhere() {
        Set<String> keys = new TreeSet<>();
        for (LockInfo info : client.list(prefix)) {
            keys.add(info.name().substring(prefix.length()));
        }
        return keys;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<KeyedTask> all = new ArrayList<>(tasks.values());
        all.forEach(KeyedTask::requestStop);
        long deadline = System.nanoTime() + stopTimeout.toNanos();
        for (KeyedTask task : all) {
            task.awaitDone(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }

    @Override
    public String toString() {
        return "ExclusiveTasks[" + (prefix.isEmpty() ? "" : "prefix '" + prefix + "', ") + tasks.size() + " keys on "
                + client.backend() + (closed.get() ? ", closed" : "") + "]";
    }
}
