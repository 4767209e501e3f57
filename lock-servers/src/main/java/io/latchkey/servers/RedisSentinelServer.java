package io.latchkey.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The recipe for a throw-away Redis Sentinel: {@code redis-server <conf> --sentinel} (Sentinel mode of the
 * {@code redis-server} binary; Debian's {@code redis-sentinel} package adds only a service around it) in the
 * foreground on a loopback port, monitoring one master. Sentinel rewrites its configuration file, so the file
 * lives in the process's own temporary directory, deleted on close. Fail-over is tuned for tests: the master is
 * down after {@code downAfter} without answers, and a fail-over may restart after {@code 10 x downAfter}. Ready
 * when it logs that it monitors the master and its port is open. Stateless.
 */
public final class RedisSentinelServer {
    private RedisSentinelServer() {}

    /**
     * What a Sentinel monitors and how quickly it gives up on the master.
     *
     * @param masterName the name clients ask for, e.g. {@code mymaster}
     * @param masterPort the master's loopback port
     * @param quorum the number of Sentinels that must agree the master is down
     * @param downAfter the silence after which a Sentinel thinks the master is down
     * @param masterPassword the master's {@code requirepass} ({@code sentinel auth-pass}), or {@code null}
     * @param sentinelPassword the Sentinel's own {@code requirepass} (clients and the other Sentinels must give
     *     it), or {@code null} for none
     */
    public record Monitor(
            String masterName,
            int masterPort,
            int quorum,
            Duration downAfter,
            String masterPassword,
            String sentinelPassword) {}

    /**
     * The Sentinel process, not started; it deletes {@code dir} on close.
     *
     * @param redis the {@code redis-server} binary
     * @param dir an empty directory for the configuration file Sentinel rewrites
     * @param port a free loopback port for the Sentinel
     * @param monitor the master it monitors
     * @return the builder, for a caller's name or other changes
     * @throws IOException if the configuration file cannot be written
     */
    public static ServerProcessBuilder process(Path redis, Path dir, int port, Monitor monitor) throws IOException {
        String m = monitor.masterName();
        long downAfter = monitor.downAfter().toMillis();
        StringBuilder conf = new StringBuilder()
                .append("port ")
                .append(port)
                .append('\n')
                .append("bind 127.0.0.1\n")
                .append("daemonize no\n")
                .append("logfile \"\"\n")
                .append("dir ")
                .append(dir)
                .append('\n')
                .append("sentinel monitor ")
                .append(m)
                .append(" 127.0.0.1 ")
                .append(monitor.masterPort())
                .append(' ')
                .append(monitor.quorum())
                .append('\n')
                .append("sentinel down-after-milliseconds ")
                .append(m)
                .append(' ')
                .append(downAfter)
                .append('\n')
                .append("sentinel failover-timeout ")
                .append(m)
                .append(' ')
                .append(10 * downAfter)
                .append('\n')
                .append("sentinel parallel-syncs ")
                .append(m)
                .append(" 1\n");
        if (monitor.masterPassword() != null) {
            conf.append("sentinel auth-pass ")
                    .append(m)
                    .append(' ')
                    .append(monitor.masterPassword())
                    .append('\n');
        }
        if (monitor.sentinelPassword() != null) {
            conf.append("requirepass ").append(monitor.sentinelPassword()).append('\n');
        }
        Path file = dir.resolve("sentinel.conf");
        Files.writeString(file, conf);
        return ServerProcess.builder()
                .name("redis sentinel on 127.0.0.1:" + port)
                .command(List.of(redis.toString(), file.toString(), "--sentinel"))
                .readiness(ReadinessCheck.logLineMatches("\\+monitor master " + java.util.regex.Pattern.quote(m))
                        .and(ReadinessCheck.tcpPortOpen(port)))
                .startupTimeout(Duration.ofSeconds(30))
                .stopTimeout(Duration.ofSeconds(5))
                .deleteOnClose(dir);
    }
}
