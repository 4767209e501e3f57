package io.latchkey.etcd;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/*
 * gRPC and Netty log through java.util.logging, not SLF4J, so an application's SLF4J levels do not reach them,
 * and JUL's default console handler prints INFO on stderr: every JVM that builds its first etcd client printed
 *   INFO: Epoll available during static init of TcpMetrics:false
 * (io.grpc.netty.TcpMetrics). Before the backend builds a client, it raises the JUL loggers "io.grpc.netty" and
 * "io.netty" to WARNING, but only a logger that nobody configured: no level set in code and no "<name>.level"
 * property in the JUL configuration (java.util.logging.config.file or readConfiguration). Warnings and errors
 * still get through; the root logger and every other logger are left alone; an application that configures
 * these loggers, or that bridges JUL to SLF4J with its own levels, keeps its choice. The loggers are held in a
 * static list because JUL keeps loggers only weakly: a level set on a logger that is collected would be lost.
 */
final class QuietGrpcLogging {
    static final List<String> LOGGERS = List.of("io.grpc.netty", "io.netty");
    private static final List<Logger> HELD =
            LOGGERS.stream().map(Logger::getLogger).toList();
    private static volatile boolean applied;

    private QuietGrpcLogging() {}

    static void apply() {
        if (applied) {
            return;
        }
        applied = true;
        LogManager manager = LogManager.getLogManager();
        for (Logger logger : HELD) {
            if (logger.getLevel() == null && manager.getProperty(logger.getName() + ".level") == null) {
                logger.setLevel(Level.WARNING);
            }
        }
    }
}
