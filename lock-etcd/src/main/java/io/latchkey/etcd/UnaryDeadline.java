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

    UnaryDeadline(Duration requestTimeout) {
        long timeout = requestTimeout.toNanos();
        // 90 %: gRPC's status (with its explanation) must arrive before EtcdCalls gives up waiting
        this.deadlineNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), timeout - timeout / 10);
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        if (method.getType() == MethodDescriptor.MethodType.UNARY) {
            CallOptions bounded = options.withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS);
            if (options.getDeadline() == null || bounded.getDeadline().isBefore(options.getDeadline())) {
                return next.newCall(method, bounded);
            }
        }
        return next.newCall(method, options);
    }
}
