package io.latchkey.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RedactionTest {
    private static final String PW = "s3cretPw";

    static Stream<Arguments> everyForm() {
        return Stream.of(
                Arguments.of("redis://user:s3cretPw@host:6379", "redis://user:***@host:6379"),
                Arguments.of("redis://:s3cretPw@host:6379", "redis://:***@host:6379"),
                Arguments.of("redis://s3cretPw@host:6379", "redis://***@host:6379"),
                Arguments.of("rediss://s3cretPw@host:6380/2", "rediss://***@host:6380/2"),
                Arguments.of("redis://host:6379?password=s3cretPw", "redis://host:6379?password=***"),
                Arguments.of("redis://user:s3cret%40Pw@host:6379", "redis://user:***@host:6379"),
                Arguments.of("redis://user:s3cret@Pw@host:6379/0", "redis://user:***@host:6379/0"),
                Arguments.of("redlock://s3cretPw@h1:1,s3cretPw@h2:2,h3:3", "redlock://***@h1:1,***@h2:2,h3:3"),
                Arguments.of("redlock://u:s3cret,Pw@h1:1,h2:2", "redlock://***,***@h1:1,h2:2"),
                Arguments.of(
                        "jdbc:postgresql://h/db?user=u&password=s3cretPw&ssl=true",
                        "jdbc:postgresql://h/db?user=u&password=***&ssl=true"),
                Arguments.of(
                        "jdbc:postgresql://h/db?user=u&sslpassword=s3cretPw",
                        "jdbc:postgresql://h/db?user=u&sslpassword=***"),
                Arguments.of("jdbc:mariadb://u:s3cretPw@h:3306/db", "jdbc:mariadb://u:***@h:3306/db"),
                Arguments.of(
                        "jdbc:mysql://h:3306/db?user=u&password=s3cretPw",
                        "jdbc:mysql://h:3306/db?user=u&password=***"),
                Arguments.of("jdbc:h2:mem:x;USER=sa;PASSWORD=s3cretPw", "jdbc:h2:mem:x;USER=sa;PASSWORD=***"),
                Arguments.of("zookeeper://u:s3cretPw@h:2181/chroot", "zookeeper://u:***@h:2181/chroot"),
                Arguments.of("etcd://u:s3cretPw@h1:2379,h2:2379", "etcd://u:***@h1:2379,h2:2379"),
                Arguments.of("etcds://u:s3cretPw@h:2379?tlsCa=/x.pem", "etcds://u:***@h:2379?tlsCa=/x.pem"),
                Arguments.of(
                        "mongodb://u:s3cretPw@h:27017/db?authSource=admin",
                        "mongodb://u:***@h:27017/db?authSource=admin"),
                Arguments.of("jdbc:postgresql://h/db?user=a@b.c", "jdbc:postgresql://h/db?user=a@b.c"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyForm")
    void everyUriFormHidesThePassword(String uri, String expected) {
        String shown = Redaction.redact(uri);
        assertEquals(expected, shown);
        assertFalse(shown.contains(PW), shown);
        assertFalse(shown.contains("s3cret"), shown);
    }

    @Test
    void textWithoutSecretsIsUnchanged() {
        assertEquals("mem:", Redaction.redact("mem:"));
        assertEquals("redis://localhost:6379/0", Redaction.redact("redis://localhost:6379/0"));
        assertEquals("could not connect to localhost:6379", Redaction.redact("could not connect to localhost:6379"));
    }

    @Test
    void settingsAndScrubbingHideSecretsEverywhere() {
        Map<String, String> settings = Map.of("password", "hunter22", "tlsKeyPassword", "k3ypass", "lease", "30s");
        assertEquals(Map.of("password", "***", "tlsKeyPassword", "***", "lease", "30s"), Redaction.redact(settings));
        assertTrue(Redaction.isSecretKey("sslpassword"));
        assertFalse(Redaction.isSecretKey("user"));
        String driver =
                "FATAL: password authentication failed for user u using s3cretPw / s3cret@Pw / hunter22 / k3ypass";
        String scrubbed = Redaction.scrub(driver, "redis://u:s3cret%40Pw@h:1?password=s3cretPw", settings);
        assertFalse(scrubbed.contains("s3cret"), scrubbed);
        assertFalse(scrubbed.contains("hunter22"), scrubbed);
        assertFalse(scrubbed.contains("k3ypass"), scrubbed);
        assertTrue(scrubbed.startsWith("FATAL: password authentication failed"), scrubbed);
    }

    @Test
    void storeErrorsAreOneLineAndCarryNoPassword() {
        var e = StoreErrors.cannotReach(
                "redis://s3cretPw@h:6379",
                java.time.Duration.ofSeconds(5),
                "Connection refused\n\tat somewhere",
                null,
                null);
        assertEquals("cannot reach redis://***@h:6379 within 5s: Connection refused at somewhere", e.getMessage());
        assertEquals("1m30s", StoreErrors.format(java.time.Duration.ofSeconds(90)));
        assertEquals("1.5s", StoreErrors.format(java.time.Duration.ofMillis(1500)));
        assertEquals("250ms", StoreErrors.format(java.time.Duration.ofMillis(250)));
        assertEquals("1h", StoreErrors.format(java.time.Duration.ofHours(1)));
    }
}
