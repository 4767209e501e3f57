package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Owner ids: the client's readable part, then a sequence number unique within the client (striped by thread). */
class OwnerIdsTest {

    @Test
    @DisplayName("ids made by many threads at once are all distinct and all carry the client's id")
    void idsFromManyThreadsAreDistinct() throws InterruptedException {
        OwnerIds ids = new OwnerIds("host/1");
        int threads = 24; // more threads than stripes: some share a stripe's counter
        int each = 5_000;
        Set<String> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> makers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread maker = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    seen.add(ids.next());
                }
            });
            maker.start();
            makers.add(maker);
        }
        start.countDown();
        for (Thread maker : makers) {
            maker.join();
        }
        assertThat(seen).hasSize(threads * each);
        assertThat(seen).allMatch(id -> id.startsWith(ids.clientId() + ":") && id.matches(".*:[0-9]+"));
    }

    @Test
    @DisplayName("one thread's ids are distinct, and two clients' never meet")
    void oneThreadsIdsAreDistinctAndClientsDiffer() {
        OwnerIds a = new OwnerIds("host/1");
        OwnerIds b = new OwnerIds("host/1");
        assertThat(a.clientId()).isNotEqualTo(b.clientId());
        Set<String> seen = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 10_000; i++) {
            assertThat(seen.add(a.next())).isTrue();
            assertThat(seen.add(b.next())).isTrue();
        }
    }
}
