package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

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
            String component = path.substring("/latchkey/".length());
            assertThat(component).doesNotContain("/").isNotIn("", ".", "..");
            assertThat(LockPaths.nameOf(component)).isEqualTo(n);
            assertThat(seen.add(component)).as("%s collides", n).isTrue();
        }
    }

    @Test
    void ownersRoundTripThroughNodeNames() {
        String owner = "host/123/abcdefghij:42";
        String node = LockPaths.marker(owner) + "0000000007";
        assertThat(LockPaths.isContender(node)).isTrue();
        assertThat(LockPaths.ownerOf(node)).isEqualTo(owner);
        assertThat(LockPaths.hasMarker(node, LockPaths.marker(owner))).isTrue();
        assertThat(LockPaths.hasMarker(node, LockPaths.marker("host/123/abcdefghij:4"))).isFalse();
        assertThat(LockPaths.sequence(node)).isEqualTo(7);
        assertThat(LockPaths.isContender("lk-x-12")).isFalse();
        assertThat(LockPaths.isContender("other-0000000001")).isFalse();
    }

    @Test
    void contendersAreOrderedBySequenceNotByName() {
        List<String> sorted = LockPaths.contenders(List.of("lk-b-0000000003", "lk-a-0000000010", "junk", "lk-c-0000000001"));
        assertThat(sorted).containsExactly("lk-c-0000000001", "lk-b-0000000003", "lk-a-0000000010");
    }
}
