package io.latchkey.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.Capability;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ExclusiveTask;
import io.latchkey.recipes.ExclusiveTasks;
import io.latchkey.recipes.TaskEnd;
import io.latchkey.recipes.TaskHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The exclusive-tasks recipe ({@code io.latchkey.recipes.ExclusiveTasks}) on this backend: one runner per key
 * across instances, cancellation on loss, stop and close that release, and takeover of a killed runner. The recipe
 * comes from {@link #newExclusiveTasks}, which the TCK's self-test overrides with broken ones.
 */
public interface ExclusiveTaskRules extends TckRules {

    /**
     * The recipe under test (short renewing lease, 10 s stop timeout); the self-test overrides it.
     *
     * @param client the client the tasks use
     * @param prefix the namespace of the keys' lock names
     * @param retryEvery the pause between attempts at a taken key, or {@code null} for one attempt
     * @param whenTaskEnds what happens to the lock when a task returns
     * @return the recipe
     */
    default ExclusiveTasks newExclusiveTasks(
            LockClient client, String prefix, @Nullable Duration retryEvery, TaskEnd whenTaskEnds) {
        ExclusiveTasks.Builder b = ExclusiveTasks.builder(client)
                .options(Tck.renewing(tck()))
                .prefix(prefix)
                .whenTaskEnds(whenTaskEnds);
        if (retryEvery != null) {
            b.retryWhenTaken(retryEvery);
        }
        return b.build();
    }

    private void assumeRecipeRules() {
        Tck.assumeRecipeRules(tck());
    }

    private Duration timeout() {
        return tck().settings()
                .shortLease()
                .plus(tck().settings().slack())
                .plus(tck().settings().wakeUp());
    }

    /** A task that runs until it is cancelled, and reports how it ended. */
    private static ExclusiveTask untilCancelled(CompletableFuture<String> ended) {
        return untilCancelled(new CompletableFuture<>(), ended);
    }

    /** A task that says when its body started, runs until it is cancelled, and reports how it ended. */
    private static ExclusiveTask untilCancelled(CompletableFuture<Long> started, CompletableFuture<String> ended) {
        return handle -> {
            started.complete(handle.fencingToken());
            try {
                while (handle.isValid()) {
                    Thread.sleep(2); // the task's own work; it is cancelled by interrupt or handle.isValid()
                }
                ended.complete("saw isValid() false");
            } catch (InterruptedException e) {
                ended.complete("interrupted");
            }
        };
    }

    /**
     * Rule recipe exclusive tasks: a key's task runs on one instance at a time, each run with a greater token.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("exclusive-tasks")
    @DisplayName("recipe exclusive tasks: a key's task runs on one instance at a time, each run with a greater token")
    default void tasks_oneRunnerPerKeyAcrossInstances() throws Exception {
        assumeRecipeRules();
        String prefix = tck().name("one-runner") + "/";
        OverlapDetector runners = new OverlapDetector();
        LostUpdateRegister register = new LostUpdateRegister();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        int updates = 200;
        List<TaskHandle> handles = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = "instance-" + i;
            ExclusiveTasks tasks = newExclusiveTasks(tck().newClient(), prefix, Duration.ofMillis(20), TaskEnd.RELEASE);
            tck().closeAtEnd(tasks);
            handles.add(tasks.start("job", handle -> {
                runners.enter(id);
                tokens.add(handle.fencingToken());
                for (int u = 0; u < updates; u++) {
                    register.increment();
                    if (u % 50 == 0) {
                        Thread.sleep(5); // give an overlapping runner the chance to show itself
                    }
                }
                runners.exit(id);
            }));
        }
        for (TaskHandle h : handles) {
            TaskHandle.State end =
                    h.done().toCompletableFuture().get(timeout().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(TaskHandle.State.COMPLETED, end, () -> h + " did not complete");
        }
        assertEquals(0, runners.overlaps(), () -> "two runners at once: " + runners.firstOverlap());
        assertEquals(3L * updates, register.value(), "lost updates between runners");
        assertEquals(3, tokens.size(), () -> "runs: " + tokens);
        for (int i = 1; i < tokens.size(); i++) {
            int n = i;
            assertTrue(tokens.get(i) > tokens.get(i - 1), () -> "tokens did not rise: " + tokens + " at #" + n);
        }
    }

    /**
     * Rule recipe exclusive tasks: a lost lock cancels the task (interrupt, invalid handle) within the bound.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("exclusive-tasks")
    @DisplayName("recipe exclusive tasks: a lost lock cancels the task (interrupt, invalid handle) within the bound")
    default void tasks_lossCancelsTheTask() throws Exception {
        assumeRecipeRules();
        String prefix = tck().name("loss") + "/";
        ExclusiveTasks tasks = newExclusiveTasks(tck().newClient(), prefix, null, TaskEnd.RELEASE);
        tck().closeAtEnd(tasks);
        CompletableFuture<String> ended = new CompletableFuture<>();
        CompletableFuture<Long> started = new CompletableFuture<>();
        TaskHandle h = tasks.start("job", untilCancelled(started, ended));
        assertTrue(h.awaitRunning(timeout()), () -> "the task did not start on a free key: " + h);
        started.get(timeout().toMillis(), TimeUnit.MILLISECONDS); // its body runs: now cancel it
        Tck.forceRelease(tck().newClient(), prefix + "job");
        // the holder hears of a forced release at its next renewal, a third of the lease later
        String how = ended.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(how.equals("interrupted") || how.equals("saw isValid() false"), how);
        assertEquals(
                TaskHandle.State.LOST,
                h.done().toCompletableFuture().get(timeout().toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(Set.of(), tasks.holding(), "holding() still lists the lost key");
    }

    /**
     * Rule recipe exclusive tasks: stop(key) cancels the task and releases its lock before it returns.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("exclusive-tasks")
    @DisplayName("recipe exclusive tasks: stop(key) cancels the task and releases its lock before it returns")
    default void tasks_stopReleasesTheLock() throws Exception {
        assumeRecipeRules();
        String prefix = tck().name("stop") + "/";
        ExclusiveTasks tasks = newExclusiveTasks(tck().newClient(), prefix, null, TaskEnd.RELEASE);
        tck().closeAtEnd(tasks);
        CompletableFuture<String> ended = new CompletableFuture<>();
        CompletableFuture<Long> started = new CompletableFuture<>();
        TaskHandle h = tasks.start("job", untilCancelled(started, ended));
        assertTrue(h.awaitRunning(timeout()), () -> "the task did not start on a free key: " + h);
        started.get(timeout().toMillis(), TimeUnit.MILLISECONDS); // its body runs: now cancel it
        assertEquals(Set.of("job"), tasks.holding());
        Tck.mustBeBusy(tck().newClient().lock(prefix + "job"), "its task was running");
        assertTrue(tasks.stop("job"), "stop found no task");
        assertTrue(ended.isDone(), "stop returned before the task did");
        assertEquals(TaskHandle.State.STOPPED, h.state());
        assertEquals(Set.of(), tasks.holding());
        try (LockHandle next = Tck.mustAcquire(tck().newClient().lock(prefix + "job"))) {
            assertTrue(next.isValid());
        }
        assertFalse(tasks.stop("job"), "a second stop found a task");
    }

    /**
     * Rule recipe exclusive tasks: holding() is this instance's keys, lockedEverywhere() every instance's.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("exclusive-tasks")
    @DisplayName("recipe exclusive tasks: holding() is this instance's keys, lockedEverywhere() every instance's")
    default void tasks_holdingAndLockedEverywhereAgreeWithTheStore() throws Exception {
        assumeRecipeRules();
        Assumptions.assumeTrue(tck().capabilities().contains(Capability.LISTING), "backend does not claim LISTING");
        String prefix = tck().name("held") + "/";
        ExclusiveTasks a = newExclusiveTasks(tck().newClient(), prefix, null, TaskEnd.RELEASE);
        ExclusiveTasks b = newExclusiveTasks(tck().newClient(), prefix, null, TaskEnd.RELEASE);
        tck().closeAtEnd(a);
        tck().closeAtEnd(b);
        assertTrue(a.start("k1", untilCancelled(new CompletableFuture<>())).awaitRunning(timeout()));
        assertTrue(a.start("k2", untilCancelled(new CompletableFuture<>())).awaitRunning(timeout()));
        TaskHandle taken = b.start("k2", untilCancelled(new CompletableFuture<>()));
        assertTrue(b.start("k3", untilCancelled(new CompletableFuture<>())).awaitRunning(timeout()));
        assertEquals(
                TaskHandle.State.NOT_ACQUIRED,
                taken.done().toCompletableFuture().get(timeout().toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(Set.of("k1", "k2"), a.holding());
        assertEquals(Set.of("k3"), b.holding());
        assertEquals(Set.of("k1", "k2", "k3"), a.lockedEverywhere());
        assertEquals(Set.of("k1", "k2", "k3"), b.lockedEverywhere());
    }

    /**
     * Rule recipe exclusive tasks: close() stops every task within its timeout and releases every lock.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("exclusive-tasks")
    @DisplayName("recipe exclusive tasks: close() stops every task within its timeout and releases every lock")
    default void tasks_closeStopsEverythingAndReleases() throws Exception {
        assumeRecipeRules();
        String prefix = tck().name("close") + "/";
        ExclusiveTasks tasks = newExclusiveTasks(tck().newClient(), prefix, null, TaskEnd.RELEASE);
        List<TaskHandle> handles = new ArrayList<>();
        for (String key : List.of("a", "b", "c")) {
            TaskHandle h = tasks.start(key, untilCancelled(new CompletableFuture<>()));
            assertTrue(h.awaitRunning(timeout()), () -> "the task did not start on a free key: " + h);
            handles.add(h);
        }
        LockClient other = tck().newClient();
        for (String key : List.of("a", "b", "c")) {
            Tck.mustBeBusy(other.lock(prefix + key), "its task was running");
        }
        tasks.close();
        for (TaskHandle h : handles) {
            assertEquals(TaskHandle.State.STOPPED, h.state(), () -> h + " after close()");
        }
        for (String key : List.of("a", "b", "c")) {
            Tck.mustAcquire(other.lock(prefix + key)).release();
        }
    }

    /**
     * Rule recipe exclusive tasks: a task that returns releases its key (RELEASE) or keeps it until stopped (KEEP_HOLDING).
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("exclusive-tasks")
    @DisplayName("recipe exclusive tasks: a task that returns releases its key (RELEASE) or keeps it until stopped"
            + " (KEEP_HOLDING)")
    default void tasks_whenTheTaskEndsByItself() throws Exception {
        assumeRecipeRules();
        String prefix = tck().name("ends") + "/";
        LockClient other = tck().newClient();
        ExclusiveTasks releasing = newExclusiveTasks(tck().newClient(), prefix, null, TaskEnd.RELEASE);
        tck().closeAtEnd(releasing);
        TaskHandle once = releasing.start("released", handle -> {});
        assertEquals(
                TaskHandle.State.COMPLETED,
                once.done().toCompletableFuture().get(timeout().toMillis(), TimeUnit.MILLISECONDS));
        Tck.mustAcquire(other.lock(prefix + "released")).release();

        ExclusiveTasks keeping = newExclusiveTasks(tck().newClient(), prefix, null, TaskEnd.KEEP_HOLDING);
        tck().closeAtEnd(keeping);
        TaskHandle kept = keeping.start("kept", handle -> {});
        Tck.await(timeout()).until(() -> kept.state() == TaskHandle.State.HOLDING);
        Tck.mustBeBusy(other.lock(prefix + "kept"), "its task had ended with KEEP_HOLDING");
        assertEquals(Set.of("kept"), keeping.holding());
        assertTrue(keeping.stop("kept"));
        Tck.mustAcquire(other.lock(prefix + "kept")).release();
    }

    /**
     * Rule recipe exclusive tasks (separate JVMs): a runner killed with SIGKILL is taken over by a retrying instance within the lease plus the retry interval, with a greater token.
     *
     * @throws Exception if the backend or a helper thread fails unexpectedly: the rule fails with it
     */
    @Test
    @Tag("exclusive-tasks")
    @DisplayName("recipe exclusive tasks (separate JVMs): a runner killed with SIGKILL is taken over by a retrying"
            + " instance within the lease plus the retry interval, with a greater token")
    default void tasks_killedRunnerProcessIsTakenOver() throws Exception {
        assumeRecipeRules();
        String prefix = tck().name("killed") + "/";
        LockOptions options = Tck.renewing(tck());
        TckProcess child = tck().startProcess(
                        ExclusiveTaskProcess.class,
                        prefix + "job",
                        Long.toString(options.lease().toMillis()));
        long childToken = Long.parseLong(child.awaitLine("RUNNING ", Duration.ofSeconds(60))
                .substring("RUNNING ".length())
                .trim());
        Duration retry = Duration.ofMillis(100);
        ExclusiveTasks survivor = newExclusiveTasks(tck().newClient(), prefix, retry, TaskEnd.RELEASE);
        tck().closeAtEnd(survivor);
        CompletableFuture<Long> took = new CompletableFuture<>();
        TaskHandle h = survivor.start("job", handle -> {
            took.complete(handle.fencingToken());
            while (handle.isValid()) {
                Thread.sleep(5);
            }
        });
        assertFalse(h.awaitRunning(Duration.ofMillis(300)), "ran while the child still held the key");
        child.kill();
        Duration bound = options.lease()
                .plus(retry)
                .plus(tck().settings().slack())
                .plus(ProcessFaultBounds.sessionAllowance(tck()));
        long token = took.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(token > childToken, () -> "token " + token + " after the killed runner's " + childToken);
    }
}
