package io.latchkey.etcd;

import io.etcd.jetcd.Client;
import java.time.Duration;

/** Builds a backend on an application's jetcd {@link Client}; not thread-safe. */
public final class EtcdLockBackendBuilder {
    private final Client client;
    private EtcdSettings.Builder settings = EtcdSettings.builder();
    private String description;

    EtcdLockBackendBuilder(Client client) {
        this.client = client;
    }

    /**
     * All settings at once (replaces earlier calls of the single setters).
     *
     * @param settings the settings
     * @return this builder
     */
    public EtcdLockBackendBuilder settings(EtcdSettings settings) {
        if (settings == null) {
            throw new IllegalArgumentException("settings must not be null; use EtcdSettings.defaults()");
        }
        this.settings = settings.toBuilder();
        return this;
    }

    /**
     * See {@link EtcdSettings.Builder#namespace(String)}.
     *
     * @param namespace the key prefix
     * @return this builder
     */
    public EtcdLockBackendBuilder namespace(String namespace) {
        settings.namespace(namespace);
        return this;
    }

    /**
     * See {@link EtcdSettings.Builder#leaseTtl(Duration)}.
     *
     * @param ttl the lease TTL
     * @return this builder
     */
    public EtcdLockBackendBuilder leaseTtl(Duration ttl) {
        settings.leaseTtl(ttl);
        return this;
    }

    /**
     * See {@link EtcdSettings.Builder#requestTimeout(Duration)}.
     *
     * @param timeout the timeout of one request
     * @return this builder
     */
    public EtcdLockBackendBuilder requestTimeout(Duration timeout) {
        settings.requestTimeout(timeout);
        return this;
    }

    /**
     * See {@link EtcdSettings.Builder#waitRecheck(Duration)}.
     *
     * @param interval how often a waiter re-reads its queue
     * @return this builder
     */
    public EtcdLockBackendBuilder waitRecheck(Duration interval) {
        settings.waitRecheck(interval);
        return this;
    }

    /**
     * How the backend names itself in messages (default {@code etcd (application client)/<namespace>}).
     *
     * @param description the text, without a password
     * @return this builder
     */
    public EtcdLockBackendBuilder description(String description) {
        if (description == null || description.isBlank()) {
            throw new IllegalArgumentException("description must be a non-blank text such as 'etcd prod cluster'");
        }
        this.description = io.latchkey.spi.Redaction.redact(description);
        return this;
    }

    /**
     * The backend on the application's client.
     *
     * @return the backend
     */
    public EtcdLockBackend build() {
        EtcdSettings s = settings.build();
        String d = description != null ? description : "etcd (application client)/" + s.namespace();
        return EtcdLockBackend.onApplicationClient(client, s, d);
    }
}
