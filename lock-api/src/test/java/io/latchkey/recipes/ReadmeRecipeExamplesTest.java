package io.latchkey.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockInfo;
import io.latchkey.LockOptions;
import io.latchkey.MultiLock;
import io.latchkey.MultiLockHandle;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The README's recipe examples, as written there (each on its own mem: store), so that they keep compiling and running. */
class ReadmeRecipeExamplesTest {

    @Test
    void electorExample() throws Exception {
        Optional<Term> term;
        try (LockClient client = Latchkey.connect("mem:readme-elector");
                Elector elector = Elector.builder(client, "billing/leader")
                        .options(LockOptions.builder()
                                .lease(Duration.ofSeconds(10))
                                .build())
                        .relinquishBackoff(Duration.ofSeconds(5))
                        .listener(
                                new ElectionListener() {
                                    @Override
                                    public void onElected(Term term) {
                                        System.out.println("leading, token " + term.fencingToken());
                                    }

                                    @Override
                                    public void onRevoked(Term term, Revocation why) {
                                        System.out.println("stepped down: " + why.reason());
                                    }
                                },
                                Runnable::run)
                        .build()
                        .start()) {
            term = elector.awaitLeadership(Duration.ofSeconds(5));
            System.out.println("leader in the store: "
                    + elector.currentLeader().map(LockInfo::owner).orElse("none"));
            assertThat(elector.currentLeader()).map(LockInfo::fencingToken).isEqualTo(term.map(Term::fencingToken));
            elector.relinquish();
            assertThat(elector.isLeader()).isFalse();
        }
        assertThat(term).isPresent();
    }

    @Test
    void exclusiveTasksExample() throws Exception {
        try (LockClient client = Latchkey.connect("mem:readme-tasks");
                ExclusiveTasks tasks = ExclusiveTasks.builder(client)
                        .prefix("jobs/")
                        .retryWhenTaken(Duration.ofSeconds(5))
                        .whenTaskEnds(TaskEnd.RELEASE)
                        .build()) {
            TaskHandle h = tasks.start("nightly-report", handle -> {
                while (handle.isValid()) {
                    System.out.println("working under token " + handle.fencingToken());
                    Thread.sleep(1000);
                }
            });
            assertThat(h.awaitRunning(Duration.ofSeconds(5))).isTrue();
            System.out.println("mine: " + tasks.holding() + ", everyone's: " + tasks.lockedEverywhere());
            assertThat(tasks.lockedEverywhere()).containsExactly("nightly-report");
            assertThat(tasks.stop("nightly-report")).isTrue();
            assertThat(h.state()).isEqualTo(TaskHandle.State.STOPPED);
        }
    }

    @Test
    void workDistributorExample() throws Exception {
        List<String> subscriptions =
                IntStream.range(0, 100).mapToObj(i -> "sub-" + i).toList();
        try (LockClient client = Latchkey.connect("mem:readme-distributor");
                WorkDistributor d = WorkDistributor.builder(client, "subscriptions")
                        .items(subscriptions)
                        .cap(20)
                        .options(LockOptions.builder()
                                .lease(Duration.ofSeconds(10))
                                .build())
                        .worker(new ItemWorker() {
                            @Override
                            public void onAssigned(String item, LockHandle handle) throws InterruptedException {
                                while (handle.isValid()) {
                                    Thread.sleep(100);
                                }
                            }

                            @Override
                            public void onRevoked(String item) {
                                System.out.println("gave up " + item);
                            }
                        })
                        .build()
                        .start()) {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> d.assigned().size() == 20);
            System.out.println("mine: " + d.assigned().size() + ", members: " + d.members());
            assertThat(d.members()).containsExactly(d.instanceId());
        }
    }

    @Test
    void multiLockExample() throws Exception {
        try (LockClient client = Latchkey.connect("mem:readme-multi")) {
            MultiLock accounts = client.lockAll("account/42", "account/7");
            try (MultiLockHandle held = accounts.acquire(Duration.ofSeconds(5))) {
                System.out.println("tokens " + held.fencingTokens() + ", valid " + held.isValid());
                assertThat(held.fencingTokens()).containsOnlyKeys("account/42", "account/7");
                assertThat(accounts.names()).containsExactly("account/42", "account/7");
            }
            assertThat(client.list("account/")).isEmpty();
        }
    }
}
