package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad input: one line on stderr saying what is wrong and what to type, exit 64, nothing held afterwards. */
class UsageIT {
    @TempDir
    static Path temp;

    static LatchkeyJar cli;

    @BeforeAll
    static void start() {
        cli = new LatchkeyJar(temp);
    }

    @AfterAll
    static void stop() {
        cli.close();
    }

    static Stream<Arguments> badInput() {
        return Stream.of(
                Arguments.of(
                        "unknown option",
                        new String[] {"exec", "--name", "u", "--frobnicate", "--", "true"},
                        "unknown option '--frobnicate'; did you mean "),
                Arguments.of(
                        "misspelt option",
                        new String[] {"exec", "--name", "u", "--no-wiat", "--", "true"},
                        "did you mean --no-wait?"),
                Arguments.of(
                        "missing --",
                        new String[] {"exec", "--name", "u", "ls", "-l"},
                        "missing '--' before the command; type: latchkey exec --name NAME"),
                Arguments.of("missing -- and command", new String[] {"exec", "--name", "u"}, "missing '--'"),
                Arguments.of("missing command", new String[] {"exec", "--name", "u", "--"}, "COMMAND"),
                Arguments.of("missing name", new String[] {"exec", "--", "true"}, "'--name=NAME'"),
                Arguments.of(
                        "bad duration",
                        new String[] {"exec", "--name", "u", "--wait", "30x", "--", "true"},
                        "must be a duration such as 250ms, 2s, 1.5s, 1m30s or 1h; '30x' is not a duration"),
                Arguments.of(
                        "bare number as duration",
                        new String[] {"exec", "--name", "u", "--lease", "30", "--", "true"},
                        "'30' has no unit"),
                Arguments.of(
                        "zero lease",
                        new String[] {"exec", "--name", "u", "--lease", "0s", "--", "true"},
                        "lease must be positive"),
                Arguments.of(
                        "malformed URI",
                        new String[] {"exec", "--name", "u", "--backend", "redis://bad host:6379", "--", "true"},
                        "malformed backend URI 'redis://bad host:6379'"),
                Arguments.of(
                        "URI without scheme",
                        new String[] {"list", "--backend", "localhost"},
                        "it has no scheme; for example mem:NAME"),
                Arguments.of(
                        "unknown scheme",
                        new String[] {"inspect", "--backend", "nosuch://h:1", "x"},
                        "unknown scheme 'nosuch:' in backend URI 'nosuch://h:1'; known schemes:"),
                Arguments.of(
                        "unknown setting",
                        new String[] {"list", "--backend", "mem:x", "-s", "colour=blue"},
                        "mem: takes only the setting namespace, got [colour]"),
                Arguments.of(
                        "empty name", new String[] {"exec", "--name", "", "--", "true"}, "lock name must not be empty"),
                Arguments.of("control character in name", new String[] {"inspect", "a\u0001b"}, "control characters"),
                Arguments.of("over-long name", new String[] {"release", "--force", "n".repeat(256)}, "too long"),
                Arguments.of(
                        "release without --force",
                        new String[] {"release", "some-lock"},
                        "needs --force; type: latchkey release --force some-lock"),
                Arguments.of(
                        "wait and no-wait",
                        new String[] {"exec", "--name", "u", "--wait", "1s", "--no-wait", "--", "true"},
                        "exclude each other"),
                Arguments.of(
                        "unknown command", new String[] {"frobnicate"}, "unknown command 'frobnicate'; did you mean "),
                Arguments.of(
                        "unknown command lists the commands",
                        new String[] {"frobnicate"},
                        "The commands are exec, distribute, list, inspect"),
                Arguments.of(
                        "misspelt exec",
                        new String[] {"exce", "--name", "x", "--", "true"},
                        "unknown command 'exce'; did you mean exec?"),
                Arguments.of("misspelt list", new String[] {"lsit"}, "unknown command 'lsit'; did you mean list?"),
                Arguments.of(
                        "misspelt inspect",
                        new String[] {"inpsect", "x"},
                        "unknown command 'inpsect'; did you mean inspect?"),
                Arguments.of(
                        "misspelt release",
                        new String[] {"relase", "--force", "x"},
                        "unknown command 'relase'; did you mean release?"),
                Arguments.of("misspelt bench", new String[] {"bnech"}, "unknown command 'bnech'; did you mean bench?"),
                Arguments.of(
                        "misspelt verify",
                        new String[] {"verfy", "--backend", "mem:"},
                        "unknown command 'verfy'; did you mean verify?"),
                Arguments.of(
                        "misspelt top-level option",
                        new String[] {"--verison"},
                        "unknown option '--verison'; did you mean --version?"),
                Arguments.of(
                        "misspelt exec option",
                        new String[] {"exec", "--nmae", "x", "--", "true"},
                        "unknown option '--nmae'; did you mean --name?"),
                Arguments.of(
                        "misspelt exec option with value",
                        new String[] {"exec", "--name", "x", "--lease=30s", "--grcae=1s", "--", "true"},
                        "unknown option '--grcae'; did you mean --grace?"),
                Arguments.of(
                        "unknown short exec option",
                        new String[] {"exec", "--name", "x", "-x", "--", "true"},
                        "unknown option '-x'; did you mean "),
                Arguments.of(
                        "misspelt list option",
                        new String[] {"list", "--prefx", "a"},
                        "unknown option '--prefx'; did you mean --prefix?"),
                Arguments.of(
                        "unknown short list option", new String[] {"list", "-z"}, "unknown option '-z'; did you mean "),
                Arguments.of(
                        "misspelt inspect option",
                        new String[] {"inspect", "--jsno", "x"},
                        "unknown option '--jsno'; did you mean --json?"),
                Arguments.of(
                        "misspelt release option",
                        new String[] {"release", "--forse", "x"},
                        "unknown option '--forse'; did you mean --force?"),
                Arguments.of(
                        "misspelt bench option",
                        new String[] {"bench", "--thraeds", "2"},
                        "unknown option '--thraeds'; did you mean --threads?"),
                Arguments.of(
                        "misspelt verify option",
                        new String[] {"verify", "--backend", "mem:", "--gruop", "fencing"},
                        "unknown option '--gruop'; did you mean --group?"),
                Arguments.of(
                        "misspelt backend option",
                        new String[] {"list", "--backnd", "mem:x"},
                        "unknown option '--backnd'; did you mean --backend?"),
                Arguments.of("no command", new String[] {}, "a command is required"),
                Arguments.of(
                        "unknown rule group",
                        new String[] {"verify", "--backend", "mem:", "--group", "speed"},
                        "unknown rule group 'speed'; the groups are exclusion"),
                Arguments.of("bad thread count", new String[] {"bench", "--threads", "0"}, "--threads must be 1-256"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInput")
    void badInputIsOneLineAndExit64(String what, String[] args, String expected) {
        LatchkeyJar.Result r = cli.run(args);
        assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.stderr().lines()).as(r.toString()).hasSize(1);
        assertThat(r.stderr())
                .as(r.toString())
                .startsWith("latchkey")
                .contains(expected)
                .contains("--help");
        assertThat(r.stdout()).as(r.toString()).isEmpty();
    }

    @Test
    void nothingIsHeldAfterBadInput() {
        cli.run("exec", "--name", "u", "--wait", "30x", "--", "true");
        cli.run("exec", "--name", "u", "ls", "-l");
        LatchkeyJar.Result list = cli.run("list", "--json");
        assertThat(list.exit()).as(list.toString()).isZero();
        assertThat(list.stdout().trim()).as(list.toString()).isEqualTo("[]");
    }

    @Test
    void anArgumentThatIsNotValidTextIsRefusedRatherThanTurnedIntoAnotherName() throws Exception {
        // the shell passes the byte 0xFF, which no UTF-8 (or ASCII) locale can decode
        LatchkeyJar.Result r = cli.runInShell("inspect \"$(printf 'a\\377b')\"");
        assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.stderr()).as(r.toString()).contains("not valid text in this locale", "LC_ALL=C.UTF-8");
    }

    @Test
    void helpAndVersionExitZero() {
        LatchkeyJar.Result help = cli.run("exec", "--help");
        assertThat(help.exit()).isZero();
        assertThat(help.stdout())
                .contains("-- COMMAND [ARG...]", "LATCHKEY_TOKEN", "75  lock not acquired", "79  the lock was lost");
        LatchkeyJar.Result version = cli.run("--version");
        assertThat(version.exit()).isZero();
        assertThat(version.stdout()).startsWith("latchkey ");
    }

    @Test
    void completionScriptIsGenerated() {
        LatchkeyJar.Result r = cli.run("generate-completion");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).contains("complete").contains("exec").contains("--no-wait");
    }
}
