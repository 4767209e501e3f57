package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LockNamesTest {

    @ParameterizedTest
    @ValueSource(
            strings = {"a", "/", "..", "'; DROP TABLE x; --", "%_*?{}", "with space", "\u00e9", "\uD83D\uDD12", "\u00A0"
            })
    @DisplayName("every string of 1-255 UTF-8 bytes without control characters is a valid name")
    void acceptsValidNames(String name) {
        assertThat(LockNames.check(name)).isSameAs(name);
    }

    @Test
    void acceptsExactly255BytesAndRejects256() {
        assertThat(LockNames.check("x".repeat(255))).hasSize(255);
        String fourByte = "\uD83D\uDE00".repeat(63) + "abc"; // 252 + 3 bytes
        assertThat(LockNames.check(fourByte)).isEqualTo(fourByte);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockNames.check("x".repeat(256)))
                .withMessageContaining("at most 255 bytes");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockNames.check("\uD83D\uDE00".repeat(64)))
                .withMessageContaining("too long");
    }

    @Test
    void rejectsNullAndEmptyWithWhatIsAllowed() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockNames.check(null))
                .withMessageContaining("must not be null")
                .withMessageContaining("1-255 UTF-8 bytes");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockNames.check(""))
                .withMessageContaining("must not be empty");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000", "\n", "tab\there", "\u001F", "\u007F", "\u0080", "\u009F"})
    void rejectsControlCharactersAndNamesTheCodePoint(String name) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockNames.check(name))
                .withMessageContaining("control characters")
                .withMessageContaining("U+");
    }

    @Test
    void rejectsLoneSurrogates() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockNames.check("a\uD800"))
                .withMessageContaining("unpaired surrogate");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockNames.check("\uDC00b"))
                .withMessageContaining("unpaired surrogate");
    }
}
