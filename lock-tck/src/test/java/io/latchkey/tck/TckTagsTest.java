package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** A tag selects its own group's rules only (tags on rule interfaces would be inherited by every test). */
class TckTagsTest {

    @Test
    void eachGroupTagSelectsOnlyThatGroupsRules() {
        Map<String, Long> counts = new TreeMap<>();
        for (String tag : new String[] {
            "exclusion",
            "fencing",
            "lease",
            "ownership",
            "loss",
            "waiting",
            "idempotency",
            "inspection",
            "namespace",
            "validation",
            "capabilities",
            "elector",
            "exclusive-tasks",
            "multi-lock",
            "distribution",
            "semaphore",
            "read-write",
            "history",
            "process-fault",
            "clock-fault",
            "network-fault"
        }) {
            var request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(DiscoverySelectors.selectClass(MemoryBackendTckTest.class))
                    .filters(TagFilter.includeTags(tag))
                    .build();
            long tests = LauncherFactory.create().discover(request).getRoots().stream()
                    .mapToLong(root -> LauncherFactory.create().discover(request).getDescendants(root).stream()
                            .filter(id -> id.isTest())
                            .count())
                    .sum();
            counts.put(tag, tests);
        }
        assertThat(counts.values()).allMatch(n -> n >= 1);
        var all = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(MemoryBackendTckTest.class))
                .build();
        var plan = LauncherFactory.create().discover(all);
        long rules = plan.getRoots().stream()
                .mapToLong(root -> plan.getDescendants(root).stream()
                        .filter(id -> id.isTest())
                        .count())
                .sum();
        assertThat(counts.values().stream().mapToLong(Long::longValue).sum())
                .as("every rule in exactly one group: " + counts)
                .isEqualTo(rules);
    }
}
