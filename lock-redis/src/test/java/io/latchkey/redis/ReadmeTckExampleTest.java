package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The root README's example of running the TCK is RedisSingleNodeTckTest itself, from its {@code class} line to the
 * end: that class compiles and passes in every build, and this test fails when the README's copy differs from it, so
 * the example cannot rot.
 */
class ReadmeTckExampleTest {
    private static final String MARKER = "<!-- tck-example: lock-redis/src/test/java/io/latchkey/redis/"
            + "RedisSingleNodeTckTest.java, from its class line to the end; ReadmeTckExampleTest checks it -->";

    @Test
    @DisplayName("the README's TCK example is RedisSingleNodeTckTest, which compiles and runs")
    void readmeExampleIsTheCompiledTest() throws IOException {
        Path module = Path.of("").toAbsolutePath();
        List<String> readme = Files.readAllLines(module.resolve("../README.md"), StandardCharsets.UTF_8);
        int marker = readme.indexOf(MARKER);
        assertThat(marker).as("the marker line in README.md").isNotNegative();
        assertThat(readme.get(marker + 1)).isEqualTo("```java");
        int end = readme.subList(marker + 2, readme.size()).indexOf("```") + marker + 2;
        List<String> example = readme.subList(marker + 2, end);

        List<String> source = Files.readAllLines(
                module.resolve("src/test/java/io/latchkey/redis/RedisSingleNodeTckTest.java"), StandardCharsets.UTF_8);
        int classLine = 0;
        while (!source.get(classLine).startsWith("class ")) {
            classLine++;
        }
        assertThat(example)
                .as("README.md's TCK example, against RedisSingleNodeTckTest.java from its class line")
                .isEqualTo(source.subList(classLine, source.size()));
    }
}
