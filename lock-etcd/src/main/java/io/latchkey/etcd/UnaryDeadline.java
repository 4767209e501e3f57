package io.latchkey.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/*
 * Gives every unary etcd call (Txn, Range, LeaseGrant, Authenticate...) a gRPC deadline a little shorter than
 * the request timeout. jetcd sends calls "wait for ready": while the connection cannot be made (TLS handshake
 * refused, untrusted certificate, nothing listening) a call simply waits, and when our own timeout cancels it
 * nobody learns why. When gRPC's deadline ends such a call, its DEADLINE_EXCEEDED status carries the last
 * connection failure ("Last Pick Failure: UNAVAILABLE ... SSLHandshakeException ..."), which EtcdCalls turns
 * into a message that says what is wrong. Streams (watches, keep-alives) get no deadline: they are long-lived
 * or bounded by the lease keeper. Only installed on clients the backend builds itself. Stateless, thread-safe.
 */
final class UnaryDeadline implements ClientInterceptor {
    private final long deadlineNanos;
    /** While connecting: the System.nanoTime() at which connectTimeout ends (0 once connected). */
    private volatile long connectDeadline;

    UnaryDeadline(Duration requestTimeout) {
        long timeout = requestTimeout.toNanos();
        // 90 %: gRPC's status (with its explanation) must arrive before EtcdCalls gives up waiting
        this.deadlineNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), timeout - timeout / 10);
    }

    /**
     * Until {@link #connected()}, a call also ends at 90 % of what is left of the connect timeout, so that its
     * status (with gRPC's reason) arrives before connect gives up, and no call outlives a failed connect.
     */
    void connecting(long connectDeadlineNanos) {
        this.connectDeadline = connectDeadlineNanos;
    }

    void connected() {
        this.connectDeadline = 0;
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        if (method.getType() == MethodDescriptor.MethodType.UNARY) {
            long nanos = deadlineNanos;
            long connectBy = connectDeadline;
            if (connectBy != 0) {
                long left = connectBy - System.nanoTime();
                nanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(nanos, left - left / 10));
            }
            CallOptions bounded = options.withDeadlineAfter(nanos, TimeUnit.NANOSECONDS);
            if (options.getDeadline() == null || bounded.getDeadline().isBefore(options.getDeadline())) {
                return next.newCall(method, bounded);
            }
        }
        return next.newCall(method, options);
    }
}
