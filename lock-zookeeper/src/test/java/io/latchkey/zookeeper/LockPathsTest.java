package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import io.latchkey.spi.GrantKind;
import io.latchkey.tck.ValidationRules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

class LockPathsTest {
    private final LockPaths paths = new LockPaths("/latchkey");

    private static List<String> names() {
        List<String> names = new ArrayList<>(ValidationRules.hostileValidNames());
        names.add("%2E");
        names.add("%25");
        names.add("\uFFFD");
        names.add("\uF8FF");
        names.add("\uFFF0x");
        names.add("\uE000");
        return names;
    }

    @Test
    void everyValidNameIsALegalDistinctReversiblePathBelowTheBase() {
        Set<String> seen = new HashSet<>();
        for (String n : names()) {
            String path = paths.parent(n);
            assertThatNoException().as(n).isThrownBy(() -> PathUtils.validatePath(path));
            assertThat(path).startsWith("/latchkey/");
            String[] parts = path.substring("/latchkey/".length()).split("/", -1);
            assertThat(parts).as(path).hasSize(2);
            String component = parts[1];
            assertThat(component).doesNotContain("/").isNotIn("", ".", "..");
            assertThat(LockPaths.isBucket(parts[0])).as(path).isTrue();
            assertThat(parts[0]).isEqualTo(LockPaths.bucketOf(component));
            assertThat(LockPaths.nameOf(component)).isEqualTo(n);
            assertThat(seen.add(component)).as("%s collides", n).isTrue();
        }
    }

    @Test
    void bucketsAreTheFirstTwelveBitsOfTheSha256OfTheEncodedNameAndSpreadEvenly() {
        // pinned: the layout is on the store, so it must not change between versions unnoticed
        assertThat(LockPaths.bucketOf("a")).isEqualTo("ca9"); // sha256("a") = ca978112...
        assertThat(paths.parent("a")).isEqualTo("/latchkey/ca9/a");
        assertThat(LockPaths.isBucket("0af")).isTrue();
        assertThat(LockPaths.isBucket("0AF")).isFalse();
        assertThat(LockPaths.isBucket("abcd")).isFalse();
        int[] load = new int[LockPaths.BUCKETS];
        for (int i = 0; i < 200_000; i++) {
            load[Integer.parseInt(LockPaths.bucketOf(LockPaths.encodeName("job-" + i)), 16)]++;
        }
        // mean 48.8: the fullest bucket stays far below the 1,360 longest names one 1 MB reply carries
        assertThat(java.util.Arrays.stream(load).max().orElseThrow()).isLessThan(100);
        assertThat(java.util.Arrays.stream(load).min().orElseThrow()).isGreaterThan(10);
    }

    @Test
    void ownersRoundTripThroughNodeNames() {
        String owner = "host/123/abcdefghij:42";
        String node = LockPaths.marker(owner) + "0000000007";
        assertThat(LockPaths.isContender(node)).isTrue();
        assertThat(LockPaths.ownerOf(node)).isEqualTo(owner);
        assertThat(LockPaths.hasMarker(node, LockPaths.marker(owner))).isTrue();
        assertThat(LockPaths.hasMarker(node, LockPaths.marker("host/123/abcdefghij:4")))
                .isFalse();
        assertThat(LockPaths.sequence(node)).isEqualTo(7);
        assertThat(LockPaths.isContender("lk-x-12")).isFalse();
        assertThat(LockPaths.isContender("other-0000000001")).isFalse();
    }

    @Test
    void nodeNamesCarryTheirGrantsKind() {
        String owner = "host/1/ab-cd:7";
        String read = LockPaths.marker(GrantKind.READ, owner) + "0000000001";
        String write = LockPaths.marker(GrantKind.WRITE, owner) + "0000000002";
        String permits = LockPaths.marker(GrantKind.permits(3, 10_000), owner) + "0000000003";
        assertThat(List.of(read, write, permits)).allMatch(LockPaths::isContender);
        assertThat(List.of(read, write, permits))
                .allMatch(n -> LockPaths.ownerOf(n).equals(owner));
        assertThat(LockPaths.marker(GrantKind.EXCLUSIVE, owner)).isEqualTo(LockPaths.marker(owner));
        assertThat(LockPaths.isWriter(write)).isTrue();
        assertThat(LockPaths.isWriter(read)).isFalse();
        assertThat(LockPaths.permitsOf(permits)).isEqualTo(3);
        assertThat(LockPaths.limitOf(permits)).isEqualTo(10_000);
        assertThat(LockPaths.permitsOf(read)).isEqualTo(1);
        // not ours: unknown prefixes, counts without digits or with too many, a missing 'x'
        assertThat(List.of(
                        "rw-a-0000000001",
                        "pmx3-a-0000000001",
                        "pm3x-a-0000000001",
                        "pm3-a-0000000001",
                        "pm1x123456-a-0000000001",
                        "pm1xa-a-0000000001"))
                .noneMatch(LockPaths::isContender);
    }

    @Test
    void contendersAreOrderedBySequenceNotByName() {
        List<String> sorted =
                LockPaths.contenders(List.of("lk-b-0000000003", "lk-a-0000000010", "junk", "lk-c-0000000001"));
        assertThat(sorted).containsExactly("lk-c-0000000001", "lk-b-0000000003", "lk-a-0000000010");
    }
}
