package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.latchkey.testing.RecordingProvider;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LatchkeyConnectTest {

    @Test
    @DisplayName("mem: is found through ServiceLoader; mem: alone is private, mem:NAME is shared in the JVM")
    void memSchemes() throws Exception {
        try (LockClient privateA = Latchkey.connect("mem:");
                LockClient privateB = Latchkey.connect("mem:");
                LockClient sharedA = Latchkey.connect("mem:connect-test");
                LockClient sharedB = Latchkey.connect("mem:connect-test")) {
            try (LockHandle h = privateA.lock("x").tryAcquire().orElseThrow()) {
                assertThat(privateB.lock("x").tryAcquire())
                        .as("private stores are separate")
                        .isPresent()
                        .get()
                        .satisfies(LockHandle::close);
                assertThat(h.isValid()).isTrue();
            }
            try (LockHandle h = sharedA.lock("x").tryAcquire().orElseThrow()) {
                assertThat(sharedB.lock("x").tryAcquire())
                        .as("a named store is shared")
                        .isEmpty();
            }
            assertThat(sharedA.backend()).isEqualTo("mem:connect-test");
        }
    }

    @Test
    @DisplayName(
            "a scheme without provider: the error lists the schemes found, the failed provider and the artifact to add")
    void missingSchemeNamesTheArtifact() {
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> Latchkey.connect("redis://user:s3cret@localhost:6379"))
                .withMessageContaining("No Latchkey backend serves scheme 'redis'")
                .withMessageContaining("Schemes found: [mem]")
                .withMessageContaining("Add the dependency io.latchkey:lock-redis")
                .withMessageContaining(
                        "Latchkey backend provider io.latchkey.testing.ExplodingProvider (schemes unknown "
                                + "until it loads; listed in test-classes) failed to load: IllegalStateException: simulated missing native library")
                .withMessageNotContaining("s3cret");
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> Latchkey.connect("jdbc:postgresql://db/app?password=hunter2"))
                .withMessageContaining("scheme 'jdbc:postgresql'")
                .withMessageContaining("io.latchkey:lock-jdbc")
                .withMessageNotContaining("hunter2");
        assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> Latchkey.connect("foo://x"))
                .withMessageContaining("latchkey.provider");
    }

    @Test
    void badUrisAreIllegalArguments() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.connect(""))
                .withMessageContaining("mem:");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.connect((String) null))
                .withMessageContaining("must not be null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.connect("no-scheme"))
                .withMessageContaining("has no scheme");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.connect("mem:x y"))
                .withMessageContaining("malformed");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.connect("mem:", Map.of("table", "t")))
                .withMessageContaining("mem: takes only the setting namespace, got [table]");
        try (LockClient odd = Latchkey.connect("mem:x?password=hunter22")) {
            assertThat(odd.backend())
                    .as("an opaque mem: name is taken whole, and shown redacted")
                    .isEqualTo("mem:x?password=***");
        }
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.connect("mem://u:hunter22@h/x"))
                .withMessageNotContaining("hunter22");
    }

    @Test
    @DisplayName("latchkey.provider forces a provider class; core settings are not passed to it")
    void explicitProviderOverride() {
        try (LockClient c = Latchkey.connect(
                "anything://host",
                Map.of("latchkey.provider", RecordingProvider.class.getName(), "owner", "batch-7", "k", "v"))) {
            assertThat(RecordingProvider.LAST_URI.get()).hasToString("anything://host");
            assertThat(RecordingProvider.LAST_SETTINGS.get()).isEqualTo(Map.of("k", "v"));
            try (LockHandle h = c.lock("job").tryAcquire().orElseThrow()) {
                assertThat(h.owner()).startsWith("batch-7/");
            }
        }
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.connect("mem:", Map.of("latchkey.provider", "no.such.Provider")))
                .withMessageContaining("no.such.Provider could not be loaded");
    }

    @Test
    @DisplayName("a backend whose description carries a password: the core shows it redacted everywhere")
    void backendDescriptionIsRedacted() {
        var leaky = new io.latchkey.testing.ForwardingBackend(new io.latchkey.mem.MemoryStore().newBackend()) {
            @Override
            public String description() {
                return "redis://s3cretPw@db.example:6379?password=hunter22";
            }
        };
        LockClient c = Latchkey.client(leaky);
        assertThat(c.backend()).isEqualTo("redis://***@db.example:6379?password=***");
        assertThat(c.toString()).doesNotContain("s3cretPw").doesNotContain("hunter22");
        c.close();
        assertThatExceptionOfType(IllegalStateException.class)
                .isThrownBy(() -> c.lock("x"))
                .withMessageContaining("redis://***@db.example:6379")
                .withMessageNotContaining("s3cretPw");
    }

    @Test
    void requiredFairnessIsCheckedAgainstCapabilities() {
        try (LockClient c = Latchkey.connect("mem:")) {
            assertThat(c.capabilities()).contains(Capability.FAIR);
            c.lock("f", LockOptions.builder().fairness(Fairness.REQUIRED).build());
        }
    }

    @Test
    void closedClientRefusesWork() {
        LockClient c = Latchkey.connect("mem:");
        c.close();
        c.close();
        assertThatExceptionOfType(IllegalStateException.class)
                .isThrownBy(() -> c.lock("x"))
                .withMessageContaining("closed");
    }
}
