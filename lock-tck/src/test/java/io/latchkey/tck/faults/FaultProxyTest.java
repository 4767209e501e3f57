package io.latchkey.tck.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.spi.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The fault proxy's modes, on a one-byte echo server: what passes, what waits, what is lost. */
class FaultProxyTest {
    private final ServerSocket echo = echoServer();
    private final AtomicInteger received = new AtomicInteger();
    private final FaultProxy proxy = FaultProxy.to("127.0.0.1", echo.getLocalPort());

    @AfterEach
    void close() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    @DisplayName("passes bytes both ways, and a latency delays each direction")
    void passesAndDelays() throws IOException {
        try (Socket s = client()) {
            assertThat(roundTrip(s)).isEqualTo('a');
            proxy.latency(Duration.ofMillis(100));
            long start = System.nanoTime();
            assertThat(roundTrip(s)).isEqualTo('a');
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        }
    }

    @Test
    @DisplayName("a lost reply reached the server; heal closes the broken connection and a new one works")
    void losesRepliesAfterTheServerActed() throws IOException {
        try (Socket s = client()) {
            proxy.loseReplies();
            s.getOutputStream().write('a');
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(received).hasValue(1); // the request arrived: only its reply was lost
            proxy.heal();
            assertThat(s.getInputStream().read()).as("the healed proxy closed the old connection").isEqualTo(-1);
        }
        try (Socket s = client()) {
            assertThat(roundTrip(s)).isEqualTo('a');
        }
    }

    @Test
    @DisplayName("a black hole lets nothing through and keeps the connection open")
    void blackHoleDropsBothWays() throws IOException {
        try (Socket s = client()) {
            proxy.blackHole();
            s.getOutputStream().write('a');
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(received).hasValue(0);
        }
    }

    @Test
    @DisplayName("a freeze holds the bytes and delivers them, in order, when it heals")
    void freezeHoldsAndDelivers() throws IOException {
        try (Socket s = client()) {
            proxy.freeze();
            s.getOutputStream().write('a');
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            proxy.heal();
            assertThat(s.getInputStream().read()).isEqualTo('a');
            assertThat(received).hasValue(1);
        }
    }

    @Test
    @DisplayName("a cut closes open connections and every new one")
    void cutCloses() throws IOException {
        try (Socket s = client()) {
            proxy.cut();
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        try (Socket s = client()) {
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    private Socket client() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        s.setSoTimeout(300);
        return s;
    }

    private static int roundTrip(Socket s) throws IOException {
        s.getOutputStream().write('a');
        return s.getInputStream().read();
    }

    private ServerSocket echoServer() {
        try {
            ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
            DaemonThreads.start("echo-accept", () -> {
                while (!server.isClosed()) {
                    try {
                        Socket c = server.accept();
                        DaemonThreads.start("echo", () -> echo(c));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            return server;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void echo(Socket c) {
        try (c;
                InputStream in = c.getInputStream();
                OutputStream out = c.getOutputStream()) {
            for (int b; (b = in.read()) >= 0; ) {
                received.incrementAndGet();
                out.write(b);
                out.flush();
            }
        } catch (IOException e) {
            // closed
        }
    }
}
