package io.latchkey.tck;

import static io.latchkey.tck.DistributionChecks.assertNoDoubleHolds;
import static io.latchkey.tck.DistributionChecks.awaitOrFail;
import static io.latchkey.tck.DistributionChecks.awaitSpread;
import static io.latchkey.tck.DistributionChecks.holders;
import static io.latchkey.tck.DistributionChecks.items;
import static io.latchkey.tck.DistributionChecks.moved;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockClient;
import io.latchkey.LockOptions;
import io.latchkey.recipes.ItemWorker;
import io.latchkey.recipes.WorkDistributor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The work distributor ({@code io.latchkey.recipes.WorkDistributor}) on this backend: convergence to an even
 * spread, the cap, takeover of a dead instance's items, bounded churn, and never an item held twice (an overlap
 * detector and rising tokens per item). Small sizes here; the figures rule measures 100 items over 10
 * instances when asked to (see the README). The distributor comes from {@link #newDistributor}, which the self-test overrides.
 */
public interface DistributionRules extends TckRules {

    /**
     * The distributor under test (short renewing lease); the self-test overrides it.
     *
     * @param client the client the instance uses
     * @param group the group's name
     * @param items the items to spread
     * @param cap the most items per instance, at least 1
     * @param instanceId the instance's id in the group
     * @param worker what runs for each claimed item
     * @return the distributor, not started
     */
    default WorkDistributor newDistributor(
            LockClient client, String group, List<String> items, int cap, String instanceId, ItemWorker worker) {
        return WorkDistributor.builder(client, group)
                .items(items)
                .cap(cap)
                .options(Tck.renewing(tck()))
                .instanceId(instanceId)
                .worker(worker)
                .build();
    }

    private void assumeRecipeRules() {
        Tck.assumeRecipeRules(tck());
    }

    /** Long enough for a few rebalancing rounds and a lease to run out. */
    private Duration timeout() {
        LockOptions o = Tck.renewing(tck());
        return o.lease()
                .plus(o.renewInterval().multipliedBy(6))
                .plus(tck().settings().slack())
                .plus(tck().settings().wakeUp());
    }

    private WorkDistributor instance(String group, List<String> items, int cap, String id, ItemTracker tracker) {
        WorkDistributor d = newDistributor(tck().newClient(), group, items, cap, id, tracker.worker(id));
        tck().closeAtEnd(d);
        return d.start();
    }

    /** Rule recipe distribution: 12 items over 4 instances converge to at most ceil(N/M) each, none held twice. */
    @Test
    @Tag("distribution")
    @DisplayName("recipe distribution: 12 items over 4 instances converge to at most ceil(N/M) each, none held twice")
    default void distribution_convergesEvenlyWithoutDoubleHolds() {
        assumeRecipeRules();
        String group = tck().name("converge");
        ItemTracker tracker = new ItemTracker();
        List<WorkDistributor> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(instance(group, items(12), 12, "i" + i, tracker));
        }
        awaitSpread(all, 12, 3, timeout(), tracker);
        assertEquals(Set.of("i0", "i1", "i2", "i3"), all.get(0).members());
        assertEquals(12, all.get(0).assignments().size(), "the store does not show every item held");
        assertNoDoubleHolds(tracker);
    }

    /** Rule recipe distribution: the per-instance cap holds even when it leaves items unclaimed. */
    @Test
    @Tag("distribution")
    @DisplayName("recipe distribution: the per-instance cap holds even when it leaves items unclaimed")
    default void distribution_capIsRespected() {
        assumeRecipeRules();
        String group = tck().name("cap");
        ItemTracker tracker = new ItemTracker();
        List<WorkDistributor> all =
                List.of(instance(group, items(12), 4, "a", tracker), instance(group, items(12), 4, "b", tracker));
        awaitSpread(all, 8, 4, timeout(), tracker);
        // a few more rounds: nobody takes a ninth item
        Tck.await(timeout())
                .pollDelay(Tck.renewing(tck()).renewInterval().multipliedBy(3))
                .until(() -> true);
        awaitSpread(all, 8, 4, Duration.ofMillis(100), tracker);
        assertNoDoubleHolds(tracker);
    }

    /** Rule recipe distribution: a crashed instance's items are taken over within the lease plus a round. */
    @Test
    @Tag("distribution")
    @DisplayName("recipe distribution: a crashed instance's items are taken over within the lease plus a round")
    default void distribution_takesOverACrashedInstancesItems() {
        assumeRecipeRules();
        String group = tck().name("takeover");
        ItemTracker tracker = new ItemTracker();
        LockClient doomed = tck().newClient();
        WorkDistributor victim = newDistributor(doomed, group, items(12), 12, "victim", tracker.worker("victim"));
        tck().closeAtEnd(victim);
        victim.start();
        List<WorkDistributor> survivors =
                List.of(instance(group, items(12), 12, "s1", tracker), instance(group, items(12), 12, "s2", tracker));
        List<WorkDistributor> all = new ArrayList<>(survivors);
        all.add(victim);
        awaitSpread(all, 12, 4, timeout(), tracker);
        tracker.kill("victim"); // its work dies with it, as a crashed process's would
        tck().crash(doomed);
        awaitSpread(survivors, 12, 6, timeout(), tracker);
        assertNoDoubleHolds(tracker);
    }

    /** Rule recipe distribution: a join or a leave moves at most ceil(N/M)+1 items. */
    @Test
    @Tag("distribution")
    @DisplayName("recipe distribution: a join or a leave moves at most ceil(N/M)+1 items")
    default void distribution_boundedChurnOnJoinAndLeave() {
        assumeRecipeRules();
        String group = tck().name("churn");
        ItemTracker tracker = new ItemTracker();
        List<WorkDistributor> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(instance(group, items(12), 12, "c" + i, tracker));
        }
        awaitSpread(all, 12, 4, timeout(), tracker);
        Map<String, String> before = holders(all);
        all.add(instance(group, items(12), 12, "c3", tracker));
        awaitSpread(all, 12, 3, timeout(), tracker);
        Map<String, String> joined = holders(all);
        int movedOnJoin = moved(before, joined);
        assertTrue(
                movedOnJoin <= 4,
                () -> movedOnJoin + " items moved when a 4th instance joined: " + before + " then " + joined);
        WorkDistributor leaving = all.remove(0);
        leaving.close();
        awaitSpread(all, 12, 4, timeout(), tracker);
        Map<String, String> left = holders(all);
        Map<String, String> stayed = new HashMap<>(joined);
        stayed.values().removeIf(holder -> holder.equals(leaving.instanceId()));
        int movedOnLeave = moved(stayed, left);
        assertTrue(
                movedOnLeave <= 5,
                () -> movedOnLeave + " items moved between the remaining instances when one" + " left: " + joined
                        + " then " + left);
        assertNoDoubleHolds(tracker);
    }

    /**
     * Rule recipe distribution (separate JVMs): the items of an instance killed with SIGKILL run elsewhere within the lease plus a round.
     */
    @Test
    @Tag("distribution")
    @DisplayName("recipe distribution (separate JVMs): the items of an instance killed with SIGKILL run elsewhere"
            + " within the lease plus a round")
    default void distribution_killedInstanceProcessItemsRunElsewhere() {
        assumeRecipeRules();
        String group = tck().name("killed");
        List<String> items = items(8);
        LockOptions options = Tck.renewing(tck());
        TckProcess child = tck().startProcess(
                        DistributorProcess.class,
                        group,
                        String.join(",", items),
                        "8",
                        Long.toString(options.lease().toMillis()),
                        "child");
        // the child alone first takes every item, so the survivor joins a group whose items are all held: what it
        // gets, it gets from the child's rebalance, not from a race with the child's first round
        awaitOrFail(
                Duration.ofSeconds(60),
                () -> DistributorProcess.itemsHeldBy(child).size() == items.size(),
                () -> "the child JVM alone did not take all " + items.size() + " items within 60 s; child: "
                        + child.lines());
        ItemTracker tracker = new ItemTracker();
        WorkDistributor survivor = instance(group, items, 8, "survivor", tracker);
        // the two must split the items between them, not merely leave the survivor with 4 at some instant: a store
        // that grants everything lets both hold all 8, and the survivor passes 4 on its way there
        Duration within = timeout().plusSeconds(30);
        awaitOrFail(
                within,
                () -> {
                    Set<String> mine = survivor.assigned();
                    Set<String> childs = DistributorProcess.itemsHeldBy(child);
                    return mine.size() == 4 && childs.size() == 4 && java.util.Collections.disjoint(mine, childs);
                },
                () -> "no even split of the 8 items between the survivor and the child (4 each, none held by both)"
                        + " within " + within + ": the survivor holds " + survivor.assigned() + ", the child "
                        + DistributorProcess.itemsHeldBy(child) + "; child: " + child.lines());
        Set<String> childItems = DistributorProcess.itemsHeldBy(child);
        child.kill();
        long killedAt = System.nanoTime();
        Duration bound = timeout()
                .plus(ProcessFaultBounds.sessionAllowance(tck()));
        awaitSpread(List.of(survivor), 8, 8, bound, () -> "the killed child held " + childItems);
        Tck.figure(
                "FIGURE distribution takeover after SIGKILL on {}: {} items in {} ms (lease {} ms)",
                survivor,
                childItems.size(),
                java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt),
                options.lease().toMillis());
        assertNoDoubleHolds(tracker);
    }

    /** Set to {@code true} (profile {@code recipe-figures}) to run {@link #distribution_figures100ItemsOver10Instances}. */
    String FIGURES_PROPERTY = "latchkey.tck.figures";

    /** What {@link DistributorProcess} prints for each item it claims. */
    String ASSIGNED = "ASSIGNED ";

    /**
     * Rule recipe distribution figures: 100 items over 10 instances (cold start, leave, join, SIGKILL); runs with -Dlatchkey.tck.figures=true.
     */
    @Test
    @Tag("distribution")
    @DisplayName("recipe distribution figures: 100 items over 10 instances (cold start, leave, join, SIGKILL);"
            + " runs with -Dlatchkey.tck.figures=true")
    default void distribution_figures100ItemsOver10Instances() {
        assumeRecipeRules();
        Assumptions.assumeTrue(
                Boolean.getBoolean(FIGURES_PROPERTY),
                "the 100-item figures run only when asked: mvn -P recipe-figures (sets " + FIGURES_PROPERTY + ")");
        String group = tck().name("figures");
        List<String> items = items(100);
        int cap = 20;
        Duration within = Duration.ofSeconds(120);
        ItemTracker tracker = new ItemTracker();
        LockOptions options = Tck.renewing(tck());
        String backend = tck().newClient().backend();

        long t0 = System.nanoTime();
        List<WorkDistributor> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(instance(group, items, cap, "f" + i, tracker));
        }
        awaitSpread(all, 100, 10, within, tracker);
        long coldStart = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        Map<String, String> before = holders(all);
        WorkDistributor leaving = all.remove(all.size() - 1);
        long t1 = System.nanoTime();
        leaving.close();
        awaitSpread(all, 100, 12, within, tracker);
        long leaveMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1);
        Map<String, String> afterLeave = holders(all);
        Map<String, String> stayed = new HashMap<>(before);
        stayed.values().removeIf(h -> h.equals(leaving.instanceId()));
        int movedOnLeave = moved(stayed, afterLeave);

        // a tenth instance joins (a child JVM where possible, so that it can then be killed with SIGKILL)
        long t2 = System.nanoTime();
        int movedOnJoin;
        long joinMillis;
        String killed = "SIGKILL not measured (no child JVM on this backend)";
        if (tck().canStartProcesses()) {
            TckProcess child = tck().startProcess(
                            DistributorProcess.class,
                            group,
                            String.join(",", items),
                            Integer.toString(cap),
                            Long.toString(options.lease().toMillis()),
                            "f-child");
            awaitSpread(all, 90, 10, within, () -> "child: " + child.lines(ASSIGNED));
            joinMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t2);
            Map<String, String> joined = holders(all);
            movedOnJoin = moved(afterLeave, joined) + (100 - joined.size()); // and the ones the child took
            child.kill();
            long t3 = System.nanoTime();
            awaitSpread(all, 100, 12, within, tracker);
            killed = (100 - joined.size()) + " items of a SIGKILL'd instance ran elsewhere after "
                    + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t3) + " ms";
        } else {
            all.add(instance(group, items, cap, "f-joined", tracker));
            awaitSpread(all, 100, 10, within, tracker);
            joinMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t2);
            movedOnJoin = moved(afterLeave, holders(all));
        }
        int joinMoved = movedOnJoin;
        Tck.figure(
                "FIGURE distribution on {} (100 items, 10 instances, cap {}, lease {} ms, rebalance {} ms): cold start"
                        + " {} ms; one leaves: {} items moved between the others, {} ms; one joins: {} items moved,"
                        + " {} ms; {}; double holds: {}",
                backend,
                cap,
                options.lease().toMillis(),
                options.renewInterval().toMillis(),
                coldStart,
                movedOnLeave,
                leaveMillis,
                movedOnJoin,
                joinMillis,
                killed,
                tracker.violations().size());
        assertTrue(joinMoved <= 11, () -> joinMoved + " items moved on a join; at most ceil(100/10)+1 may");
        assertTrue(movedOnLeave <= 13, () -> movedOnLeave + " items moved on a leave; at most ceil(100/9)+1 may");
        assertNoDoubleHolds(tracker);
    }
}
