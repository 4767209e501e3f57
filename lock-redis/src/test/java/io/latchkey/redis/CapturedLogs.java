package io.latchkey.redis;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Captures what reaches System.err (where slf4j-simple writes, as do libraries that print) while open, and,
 * when asked, turns every SLF4J logger up to DEBUG for that time: the level of every existing slf4j-simple
 * logger and the default for new ones are set by reflection (slf4j-simple reads its configuration once per JVM,
 * and the other test classes of this module run in the same JVM at the default level) and put back on close.
 * What is captured is also passed on to the real System.err, so a failing test still shows it.
 */
final class CapturedLogs implements AutoCloseable {
    private static final int DEBUG = 10; // slf4j-simple's LOG_LEVEL_DEBUG

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final Map<Object, Integer> savedLevels = new HashMap<>();
    private Object config;
    private Integer savedDefault;

    private CapturedLogs(boolean debug) {
        if (debug) {
            raiseToDebug();
        }
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                original.write(b, off, len);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    /** Captures stderr at the levels in force (slf4j-simple's default: INFO). */
    static CapturedLogs atDefaultLevels() {
        return new CapturedLogs(false);
    }

    /** Captures stderr with every SLF4J logger at DEBUG. */
    static CapturedLogs atDebug() {
        return new CapturedLogs(true);
    }

    String text() {
        System.err.flush();
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    private void raiseToDebug() {
        try {
            ILoggerFactory factory = LoggerFactory.getILoggerFactory();
            LoggerFactory.getLogger(CapturedLogs.class).isDebugEnabled(); // initialise slf4j-simple
            Class<?> simpleLogger = Class.forName("org.slf4j.simple.SimpleLogger");
            Field configField = simpleLogger.getDeclaredField("CONFIG_PARAMS");
            configField.setAccessible(true);
            config = configField.get(null);
            Field defaultLevel = config.getClass().getDeclaredField("defaultLogLevel");
            defaultLevel.setAccessible(true);
            savedDefault = defaultLevel.getInt(config);
            defaultLevel.setInt(config, DEBUG);
            Field mapField = factory.getClass().getDeclaredField("loggerMap");
            mapField.setAccessible(true);
            Field level = simpleLogger.getDeclaredField("currentLogLevel");
            level.setAccessible(true);
            for (Logger logger : ((ConcurrentMap<?, Logger>) mapField.get(factory)).values()) {
                savedLevels.put(logger, level.getInt(logger));
                level.setInt(logger, DEBUG);
            }
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("cannot raise slf4j-simple to DEBUG (is slf4j-simple the binding?)", e);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
        try {
            if (savedDefault != null) {
                Field defaultLevel = config.getClass().getDeclaredField("defaultLogLevel");
                defaultLevel.setAccessible(true);
                defaultLevel.setInt(config, savedDefault);
                Class<?> simpleLogger = Class.forName("org.slf4j.simple.SimpleLogger");
                Field level = simpleLogger.getDeclaredField("currentLogLevel");
                level.setAccessible(true);
                Field mapField = LoggerFactory.getILoggerFactory().getClass().getDeclaredField("loggerMap");
                mapField.setAccessible(true);
                for (Logger logger :
                        ((ConcurrentMap<?, Logger>) mapField.get(LoggerFactory.getILoggerFactory())).values()) {
                    level.setInt(logger, savedLevels.getOrDefault(logger, savedDefault));
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot restore slf4j-simple's levels", e);
        }
    }
}
