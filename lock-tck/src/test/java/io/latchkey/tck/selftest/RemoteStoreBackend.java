package io.latchkey.tck.selftest;

import static io.latchkey.tck.selftest.StoreServer.dec;
import static io.latchkey.tck.selftest.StoreServer.enc;

import io.latchkey.BackendUnavailableException;
import io.latchkey.Capability;
import io.latchkey.LockInfo;
import io.latchkey.LockLoss;
import io.latchkey.spi.AcquireRequest;
import io.latchkey.spi.AcquireResult;
import io.latchkey.spi.Busy;
import io.latchkey.spi.Grant;
import io.latchkey.spi.LockBackend;
import io.latchkey.spi.RenewResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/*
 * A client of a FlawedStore served by StoreServer, for child JVMs of the self-test (and only for them): it claims
 * what FlawedBackend claims (LISTING; the core polls and renews). Validity is counted from before each request
 * was sent, lease minus nothing: both processes share one machine's monotonic clock rate.
 *
 * Concurrency: one socket, one request at a time; `io` (a ReentrantLock, not synchronized) keeps a request and its
 * reply together. A broken or slow connection fails the call with BackendUnavailableException and is reopened by
 * the next call.
 */
final class RemoteStoreBackend implements LockBackend {
    private static final int REPLY_TIMEOUT_MILLIS = 5_000;

    private final String host;
    private final int port;
    private final ReentrantLock io = new ReentrantLock();
    private Socket socket; // guarded by io
    private BufferedReader in; // guarded by io
    private Writer out; // guarded by io

    private final boolean wallClockExpiry;
    private final boolean leaseBySecondRequest;

    RemoteStoreBackend(String host, int port, boolean wallClockExpiry) {
        this(host, port, wallClockExpiry, false);
    }

    /** With {@code leaseBySecondRequest}, the client of a store with the flaw LEASE_SET_BY_A_SECOND_REQUEST. */
    RemoteStoreBackend(String host, int port, boolean wallClockExpiry, boolean leaseBySecondRequest) {
        this.host = host;
        this.port = port;
        this.wallClockExpiry = wallClockExpiry;
        this.leaseBySecondRequest = leaseBySecondRequest;
    }

    /** The lease as sent: nanoseconds, or (flaw EXPIRY_FROM_CLIENT_WALL_CLOCK) an expiry on this JVM's wall clock. */
    private String leaseField(Duration lease) {
        return wallClockExpiry
                ? "@" + (System.currentTimeMillis() + lease.toMillis()) // FLAW: the client's wall clock in the store
                : Long.toString(lease.toNanos());
    }

    @Override
    public String description() {
        return StoreServer.SCHEME + "://" + host + ":" + port;
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.LISTING);
    }

    @Override
    public AcquireResult tryAcquire(AcquireRequest r) {
        long start = System.nanoTime();
        String[] reply =
                call(r.name(), "ACQ", enc(r.name()), enc(r.owner()), leaseField(r.lease()), r.fairness());
        if (reply[0].equals("GRANT")) {
            Grant g = new Grant(r.name(), r.owner(), Long.parseLong(reply[1]), start + r.lease().toNanos(), null);
            if (leaseBySecondRequest) {
                renew(g, r.lease()); // FLAW LEASE_SET_BY_A_SECOND_REQUEST: EXPIRE after SETNX
            }
            return g;
        }
        return new Busy(
                reply[1].equals("-") ? null : dec(reply[1]),
                Long.parseLong(reply[2]),
                reply[3].equals("-") ? null : Duration.ofNanos(Long.parseLong(reply[3])));
    }

    @Override
    public RenewResult renew(Grant g, Duration lease) {
        long start = System.nanoTime();
        String[] reply = call(g.name(), "RENEW", enc(g.name()), enc(g.owner()), g.fencingToken(), leaseField(lease));
        if (reply[0].equals("RENEWED")) {
            return RenewResult.renewed(start + lease.toNanos());
        }
        return RenewResult.notHeld(reply[1].equals("-") ? null : LockLoss.Reason.valueOf(reply[1]));
    }

    @Override
    public boolean release(Grant g) {
        return Boolean.parseBoolean(call(g.name(), "REL", enc(g.name()), enc(g.owner()), g.fencingToken())[0]);
    }

    @Override
    public boolean forceRelease(String name) {
        return Boolean.parseBoolean(call(name, "FORCE", enc(name))[0]);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return infos(call(name, "INSPECT", enc(name))).stream().findFirst();
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return infos(call(null, "LIST", enc(prefix)));
    }

    private static List<LockInfo> infos(String[] reply) {
        List<LockInfo> infos = new ArrayList<>();
        for (int i = 1; i + 4 < reply.length; i += 5) {
            infos.add(new LockInfo(
                    dec(reply[i]),
                    dec(reply[i + 1]),
                    Long.parseLong(reply[i + 2]),
                    at(reply[i + 3]),
                    at(reply[i + 4])));
        }
        return infos;
    }

    private static Optional<Instant> at(String millis) {
        return millis.equals("-") ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(millis)));
    }

    private String[] call(String lockName, Object... fields) {
        StringBuilder line = new StringBuilder();
        for (Object f : fields) {
            line.append(line.length() == 0 ? "" : " ").append(f);
        }
        io.lock();
        try {
            if (socket == null) {
                socket = new Socket();
                socket.connect(new InetSocketAddress(host, port), REPLY_TIMEOUT_MILLIS);
                socket.setSoTimeout(REPLY_TIMEOUT_MILLIS);
                in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
            }
            out.write(line + "\n");
            out.flush();
            String reply = in.readLine();
            if (reply == null) {
                throw new IOException("the store closed the connection");
            }
            if (reply.equals("DOWN")) {
                throw unavailable(lockName, "the store is in an outage (a TCK fault)", null);
            }
            return reply.split(" ", -1);
        } catch (IOException e) {
            disconnect();
            throw unavailable(lockName, "could not reach the self-test store: " + e.getMessage(), e);
        } finally {
            io.unlock();
        }
    }

    private BackendUnavailableException unavailable(String lockName, String message, Throwable cause) {
        return new BackendUnavailableException(message, lockName, description(), cause);
    }

    private void disconnect() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // gone either way
            }
            socket = null;
        }
    }

    @Override
    public void close() {
        io.lock();
        try {
            disconnect();
        } finally {
            io.unlock();
        }
    }
}
