package io.latchkey.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.Reentrancy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bad input to the recipes' builders and to lockAll: a clear IllegalArgumentException, and nothing in the store. */
class RecipeInputTest {
    private final LockClient client = Latchkey.connect("mem:recipe-input");

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void electorOptionsMustRenewAndNotBeReentrant() {
        assertThatThrownBy(() -> Elector.builder(client, "e")
                        .options(LockOptions.builder().autoRenew(false).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("autoRenew on, was off");
        assertThatThrownBy(() -> Elector.builder(client, "e")
                        .options(LockOptions.builder()
                                .reentrancy(Reentrancy.PER_THREAD)
                                .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reentrancy NONE, was PER_THREAD");
        assertThatThrownBy(() -> Elector.builder(client, "bad\u0000name")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Elector.builder(client, "e").relinquishBackoff(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("relinquishBackoff");
        assertThatThrownBy(() -> Elector.builder(client, "e").listener(new ElectionListener() {}, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Runnable::run");
    }

    @Test
    void electorStartsOnceAndNotAfterClose() {
        Elector e = Elector.builder(client, "once").build();
        e.start();
        assertThatThrownBy(e::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
        e.close();
        e.close(); // idempotent
        Elector closed = Elector.builder(client, "never").build();
        closed.close();
        assertThatThrownBy(closed::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void exclusiveTasksRejectBadKeysTwiceStartedKeysAndUseAfterClose() throws Exception {
        ExclusiveTasks tasks = ExclusiveTasks.builder(client).prefix("jobs/").build();
        assertThatThrownBy(() -> tasks.start("bad\u0001key", h -> {})).isInstanceOf(IllegalArgumentException.class);
        TaskHandle h = tasks.start("k", handle -> Thread.sleep(60_000));
        assertThat(h.awaitRunning(Duration.ofSeconds(10))).isTrue();
        assertThatThrownBy(() -> tasks.start("k", handle -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("task 'k' was already started here");
        tasks.close();
        assertThat(h.state()).isEqualTo(TaskHandle.State.STOPPED);
        assertThatThrownBy(() -> tasks.start("other", handle -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(client.list("jobs/")).isEmpty();
        assertThatThrownBy(() -> ExclusiveTasks.builder(client).retryWhenTaken(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExclusiveTasks.builder(client).whenTaskEnds(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("RELEASE or KEEP_HOLDING");
    }

    @Test
    void workDistributorChecksItemsCapWorkerAndInstanceId() {
        WorkDistributor.Builder b = WorkDistributor.builder(client, "g");
        assertThatThrownBy(() -> b.items(List.of())).hasMessageContaining("at least one item");
        assertThatThrownBy(() -> b.items(List.of("a", "a"))).hasMessageContaining("'a' appears twice");
        assertThatThrownBy(() -> b.cap(0)).hasMessageContaining("cap must be at least 1, was 0");
        assertThatThrownBy(() -> b.instanceId("a/b")).hasMessageContaining("without '/'");
        assertThatThrownBy(() ->
                        WorkDistributor.builder(client, "g").items(List.of("a")).build())
                .hasMessageContaining("worker must be set");
        assertThat(client.list("g/")).isEmpty();
    }

    @Test
    void lockAllRejectsNoNamesRepeatsAndBadNamesBeforeTheStore() {
        assertThatThrownBy(() -> client.lockAll()).hasMessageContaining("at least one name");
        assertThatThrownBy(() -> client.lockAll("a", "b", "a")).hasMessageContaining("'a' appears more than once");
        assertThatThrownBy(() -> client.lockAll("a", "")).isInstanceOf(IllegalArgumentException.class);
        assertThat(client.lockAll("b", "a", "c").names()).containsExactly("a", "b", "c");
        assertThat(client.list("")).isEmpty();
    }
}
