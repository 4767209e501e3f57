package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./latchkey} launcher at the repository root runs the jar and passes LATCHKEY_CLASSPATH on.
 * {@code LATCHKEY_SKIP_BUILD=true} keeps it from rebuilding during the test (the jar was just packaged; other
 * modules' sources may be newer on a developer's machine).
 */
class LauncherIT {
    private static final Path ROOT = Paths.get(System.getProperty("latchkey.jar", "target/latchkey.jar"))
            .toAbsolutePath()
            .getParent()
            .getParent()
            .getParent();
    private static final Path TEST_CLASSES = Paths.get(
                    System.getProperty("latchkey.testClasses", "target/test-classes"))
            .toAbsolutePath();

    @TempDir
    Path temp;

    @Test
    void runsTheJarWithItsArguments() throws Exception {
        Path launcher = ROOT.resolve("latchkey");
        assertThat(Files.isExecutable(launcher)).as(launcher + " is executable").isTrue();
        String out = run(List.of(launcher.toString(), "--version"), null);
        assertThat(out).startsWith("latchkey ");
    }

    @Test
    void passesLatchkeyClasspathOnSoThatVerifyFindsTheUsersProvider() throws Exception {
        String out = run(
                List.of(
                        ROOT.resolve("latchkey").toString(),
                        "verify",
                        "--backend",
                        "testmem:launcher",
                        "--group",
                        "fencing"),
                TEST_CLASSES.toString());
        assertThat(out).contains("passed   §4.2 fencing").contains("0 failed");
    }

    private String run(List<String> command, String classpath) throws IOException, InterruptedException {
        Path output = temp.resolve("out-" + System.nanoTime());
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().put("LATCHKEY_SKIP_BUILD", "true");
        pb.environment().put("HOME", temp.toString());
        pb.environment().put("LATCHKEY_JAVA_OPTS", "-Duser.home=" + temp);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        if (classpath != null) {
            pb.environment().put("LATCHKEY_CLASSPATH", classpath);
        }
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("launcher finished").isTrue();
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text).isZero();
        return text;
    }
}
