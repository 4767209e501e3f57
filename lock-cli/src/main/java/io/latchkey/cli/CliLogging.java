package io.latchkey.cli;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps library logging off the terminal: {@code latchkey} says what happened itself, in one line per event,
 * so an unreachable store is one line ({@code cannot reach ...}) and not that line plus a client library's
 * reconnect warnings. Two sources are silenced by default:
 * <ul>
 *   <li>SLF4J (slf4j-simple): every library is off except Latchkey's own errors; setting
 *       {@code -Dorg.slf4j.simpleLogger.defaultLogLevel=...} (e.g. through {@code LATCHKEY_JAVA_OPTS} or
 *       {@code JAVA_TOOL_OPTIONS}) restores that level for everything, Latchkey included;</li>
 *   <li>java.util.logging, which gRPC and Netty (lock-etcd) use and whose default console handler prints
 *       INFO lines such as "Epoll available" to stderr: its handlers are removed and its records routed to
 *       SLF4J, where the levels above apply.</li>
 * </ul>
 * Must run before the first logger is created (slf4j-simple reads its configuration once). Main thread only.
 */
final class CliLogging {
    static final String DEFAULT_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";
    static final String LATCHKEY_LEVEL = "org.slf4j.simpleLogger.log.io.latchkey";

    private CliLogging() {}

    static void configure() {
        if (System.getProperty(DEFAULT_LEVEL) == null) {
            System.setProperty(DEFAULT_LEVEL, "off");
            if (System.getProperty(LATCHKEY_LEVEL) == null) {
                System.setProperty(LATCHKEY_LEVEL, "error");
            }
        }
        LogManager.getLogManager().reset();
        java.util.logging.Logger.getLogger("").addHandler(new ToSlf4j());
    }

    /**
     * java.util.logging records to SLF4J, under the record's logger name (a dozen lines instead of another
     * dependency: only the level, the message and the exception are carried over).
     */
    static final class ToSlf4j extends Handler {
        @Override
        public void publish(LogRecord record) {
            if (record == null) {
                return;
            }
            Logger log = LoggerFactory.getLogger(record.getLoggerName() == null ? "jul" : record.getLoggerName());
            int level = record.getLevel().intValue();
            String message = getFormatter() != null ? getFormatter().formatMessage(record) : format(record);
            Throwable thrown = record.getThrown();
            if (level >= Level.SEVERE.intValue()) {
                log.error(message, thrown);
            } else if (level >= Level.WARNING.intValue()) {
                log.warn(message, thrown);
            } else if (level >= Level.INFO.intValue()) {
                log.info(message, thrown);
            } else if (level >= Level.FINE.intValue()) {
                log.debug(message, thrown);
            } else {
                log.trace(message, thrown);
            }
        }

        private static String format(LogRecord record) {
            String message = record.getMessage();
            Object[] parameters = record.getParameters();
            if (message == null || parameters == null || parameters.length == 0) {
                return message;
            }
            try {
                return java.text.MessageFormat.format(message, parameters);
            } catch (IllegalArgumentException e) {
                return message;
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }
}
