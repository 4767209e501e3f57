package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** User-info in a JDBC URL is taken out for the pool; the driver never sees it (pgjdbc would take it for a host). */
class UrlCredentialsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            nullValues = "null",
            value = {
                "jdbc:postgresql://app:s3cret@db:5432/locks | jdbc:postgresql://db:5432/locks | app | s3cret",
                "jdbc:postgresql://app:s3%40c:ret@db/locks?ssl=true | jdbc:postgresql://db/locks?ssl=true | app | s3@c:ret",
                "jdbc:postgresql://:s3cret@db/locks | jdbc:postgresql://db/locks | null | s3cret",
                "jdbc:mariadb://app@db:3306/locks | jdbc:mariadb://db:3306/locks | app | null",
                "jdbc:mariadb://app:pw@h1:3306,h2:3306/locks | jdbc:mariadb://h1:3306,h2:3306/locks | app | pw",
                "jdbc:postgresql://db/locks?user=a@b.c&password=x | jdbc:postgresql://db/locks?user=a@b.c&password=x | null | null",
                "jdbc:h2:mem:x;USER=sa | jdbc:h2:mem:x | sa | null",
                "jdbc:h2:tcp://127.0.0.1:1/mem:s;user=u;Password=p;MODE=PostgreSQL | jdbc:h2:tcp://127.0.0.1:1/mem:s;MODE=PostgreSQL | u | p",
                "jdbc:h2:tcp://pw@127.0.0.1:1/mem:s | jdbc:h2:tcp://127.0.0.1:1/mem:s | null | pw",
                "jdbc:h2:tcp://u:pw@127.0.0.1:1/mem:s | jdbc:h2:tcp://127.0.0.1:1/mem:s | u | pw",
                "jdbc:postgresql://db/locks | jdbc:postgresql://db/locks | null | null"
            })
    void userInfoIsTakenOut(String url, String stripped, String user, String password) {
        UrlCredentials c = UrlCredentials.of(url);
        assertThat(c.url()).isEqualTo(stripped);
        assertThat(c.user()).isEqualTo(user);
        assertThat(c.password()).isEqualTo(password);
        if (password != null && password.length() > 1) { // a one-letter password appears in any text
            assertThat(c.toString()).doesNotContain(password);
        }
    }
}
