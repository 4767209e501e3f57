package io.latchkey.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Real little servers for the fixture tests, and a raw HTTP probe that can tell "frozen" from "down". */
final class TestServers {

    /** The system interpreter rather than a pyenv shim, so that other users can run it too. */
    static final String PYTHON = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";

    private TestServers() {}

    /** {@code python3 -m http.server PORT} on loopback, serving /tmp, unbuffered so its log lines arrive at once. */
    static ServerProcessBuilder httpServer(int port) {
        return ServerProcess.builder()
                .name("http.server on 127.0.0.1:" + port)
                .command(PYTHON, "-m", "http.server", Integer.toString(port), "--bind", "127.0.0.1")
                .workingDirectory(Path.of("/tmp"))
                .environment("PYTHONUNBUFFERED", "1")
                .readiness(ReadinessCheck.tcpPortOpen(port))
                .startupTimeout(Duration.ofSeconds(15))
                .stopTimeout(Duration.ofSeconds(5));
    }

    /**
     * Sends {@code HEAD /} and returns the status line.
     *
     * @throws java.net.SocketTimeoutException if the server accepts (the kernel does that even for a
     *     frozen process) but does not answer within {@code timeout}
     */
    static String httpHead(int port, Duration timeout) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write("HEAD / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            String status = in.readLine();
            if (status == null) {
                throw new IOException("connection closed without a status line");
            }
            return status;
        }
    }

    static boolean answers(int port) {
        try {
            return httpHead(port, Duration.ofSeconds(2)).contains(" 200 ");
        } catch (IOException e) {
            return false;
        }
    }

    static boolean isRunning(long pid) {
        return ProcessHandle.of(pid).map(ProcessTree::isRunning).orElse(false);
    }

    static boolean noneRunning(List<Long> pids) {
        return pids.stream().noneMatch(TestServers::isRunning);
    }
}
