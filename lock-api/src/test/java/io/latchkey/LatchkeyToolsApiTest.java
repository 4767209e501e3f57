package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.latchkey.spi.LockBackend;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The small public API tools such as the CLI use instead of the core: providers, schemes, names, backends. */
class LatchkeyToolsApiTest {

    private static ClassLoader loader() {
        return LatchkeyToolsApiTest.class.getClassLoader();
    }

    @Test
    void providersListLoadedOnesWithSchemesAndFailedOnesWithTheReason() {
        List<BackendProviderInfo> providers = Latchkey.providers(loader());

        assertThat(providers).anySatisfy(p -> {
            assertThat(p.loaded()).isTrue();
            assertThat(p.schemes()).contains("mem");
            assertThat(p.failureSentence()).isEmpty();
        });
        assertThat(providers).anySatisfy(p -> {
            assertThat(p.loaded()).isFalse();
            assertThat(p.className()).isEqualTo("io.latchkey.testing.ExplodingProvider");
            assertThat(p.failureSentence())
                    .hasValueSatisfying(
                            s -> assertThat(s).contains("failed to load").contains("simulated missing native library"));
        });
    }

    @Test
    void schemeOfReadsTheSchemeAndAJdbcSubProtocol() {
        assertThat(Latchkey.schemeOf("redis://h:6379")).isEqualTo("redis");
        assertThat(Latchkey.schemeOf("MEM:x")).isEqualTo("mem");
        assertThat(Latchkey.schemeOf("jdbc:PostgreSQL://h/db")).isEqualTo("jdbc:postgresql");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.schemeOf("no-scheme"))
                .withMessageContaining("no scheme");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.schemeOf("jdbc:x"))
                .withMessageContaining("sub-protocol");
        assertThatIllegalArgumentException().isThrownBy(() -> Latchkey.schemeOf(null));
    }

    @Test
    void checkLockNameAppliesTheClientsRule() {
        assertThat(Latchkey.checkLockName("nightly-report")).isEqualTo("nightly-report");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.checkLockName(""))
                .withMessageContaining("empty");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.checkLockName("a\u0001b"))
                .withMessageContaining("control characters");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Latchkey.checkLockName("x".repeat(256)))
                .withMessageContaining("255");
    }

    @Test
    void backendIsWhatConnectWouldUseWithoutAClient() throws Exception {
        try (LockBackend backend = Latchkey.backend("mem:", Map.of(), loader())) {
            assertThat(backend).isNotNull();
        }
        assertThat(Latchkey.PROVIDER_SETTING).isEqualTo("latchkey.provider");
    }
}
