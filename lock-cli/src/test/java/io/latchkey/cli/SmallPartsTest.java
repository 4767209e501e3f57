package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pieces that need no process: bench's list splitting, JSON escaping, quantiles. */
class SmallPartsTest {
    @Test
    void benchListKeepsCommasInsideARedlockUri() {
        assertThat(BenchTarget.split("mem,h2")).containsExactly("mem", "h2");
        assertThat(BenchTarget.split("mem, redlock://a:1,b:2,c:3 ,jdbc:h2:mem:x,redis"))
                .containsExactly("mem", "redlock://a:1,b:2,c:3", "jdbc:h2:mem:x", "redis");
        assertThat(BenchTarget.split(",,")).isEmpty();
    }

    @Test
    void jsonEscapesQuotesBackslashesAndControlCharacters() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "a\"b\\c\u0001\n/ü");
        m.put("n", 5L);
        m.put("none", null);
        m.put("ok", true);
        assertThat(Json.object(m))
                .isEqualTo("{\"name\":\"a\\\"b\\\\c\\u0001\\n/ü\",\"n\":5,\"none\":null,\"ok\":true}");
        assertThat(Json.value(List.of())).isEqualTo("[]");
        assertThat(Json.value(List.of(Map.of("a", 1), Map.of("b", 2)))).isEqualTo("[{\"a\":1},{\"b\":2}]");
    }

    @Test
    void quantilesAreNearestRank() {
        long[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertThat(BenchResult.quantile(sorted, 10, 0.5)).isEqualTo(5);
        assertThat(BenchResult.quantile(sorted, 10, 0.99)).isEqualTo(10);
        assertThat(BenchResult.quantile(sorted, 0, 0.5)).isZero();
        assertThat(BenchResult.quantile(sorted, 1, 0.99)).isEqualTo(1);
    }
}
