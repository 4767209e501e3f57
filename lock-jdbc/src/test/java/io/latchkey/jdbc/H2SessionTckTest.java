package io.latchkey.jdbc;

import io.latchkey.servers.RunningServer;
import org.junit.jupiter.api.DisplayName;

@DisplayName("TCK: H2 (embedded, in memory) session mode")
class H2SessionTckTest extends JdbcBackendTck {
    private static final String URL = "jdbc:h2:mem:latchkey-tck-session;DB_CLOSE_DELAY=-1";

    @Override
    protected String url() {
        return URL;
    }

    @Override
    protected JdbcMode mode() {
        return JdbcMode.SESSION;
    }

    @Override
    protected RunningServer server() {
        return null;
    }
}
