package io.latchkey.spring.boot;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code latchkey.*}: the backend URI and settings of the application's {@code LockClient}, and the options of its
 * {@code LockRegistry} and metrics. {@link #toString()} never shows the URI or the settings (they may carry a
 * password).
 */
@ConfigurationProperties("latchkey")
public class LatchkeyProperties {
    /** The backend, e.g. {@code redis://redis:6379} or {@code jdbc:postgresql://db/app?user=app}. */
    private String uri;

    /** Backend settings that are not in the URI (e.g. {@code password}, {@code owner}). */
    private Map<String, String> settings = new LinkedHashMap<>();

    private final Registry registry = new Registry();

    private final Metrics metrics = new Metrics();

    /**
     * The backend URI.
     *
     * @return {@code latchkey.uri}
     */
    public String getUri() {
        return uri;
    }

    /**
     * Sets the backend URI.
     *
     * @param uri {@code latchkey.uri}
     */
    public void setUri(String uri) {
        this.uri = uri;
    }

    /**
     * Backend settings besides the URI.
     *
     * @return {@code latchkey.settings}
     */
    public Map<String, String> getSettings() {
        return settings;
    }

    /**
     * Sets the backend settings.
     *
     * @param settings {@code latchkey.settings}
     */
    public void setSettings(Map<String, String> settings) {
        this.settings = settings;
    }

    /**
     * The registry's options.
     *
     * @return {@code latchkey.registry.*}
     */
    public Registry getRegistry() {
        return registry;
    }

    /**
     * The metrics' options.
     *
     * @return {@code latchkey.metrics.*}
     */
    public Metrics getMetrics() {
        return metrics;
    }

    @Override
    public String toString() {
        return "LatchkeyProperties[uri " + (uri == null ? "unset" : "set") + ", " + settings.size() + " settings, "
                + registry + ", " + metrics + "]";
    }

    /** {@code latchkey.registry.*}: the Spring Integration {@code LockRegistry} bean. */
    public static class Registry {
        /** Put before every key. */
        private String prefix = "";

        /** How long a grant lasts without renewal. */
        private Duration ttl = Duration.ofSeconds(60);

        /** Renew grants for as long as they are held. */
        private boolean autoRenew;

        /**
         * The prefix put before every key.
         *
         * @return {@code latchkey.registry.prefix}
         */
        public String getPrefix() {
            return prefix;
        }

        /**
         * Sets the prefix put before every key.
         *
         * @param prefix {@code latchkey.registry.prefix}
         */
        public void setPrefix(String prefix) {
            this.prefix = prefix;
        }

        /**
         * How long a grant lasts without renewal.
         *
         * @return {@code latchkey.registry.ttl}
         */
        public Duration getTtl() {
            return ttl;
        }

        /**
         * Sets how long a grant lasts without renewal.
         *
         * @param ttl {@code latchkey.registry.ttl}
         */
        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        /**
         * Whether grants are renewed while held.
         *
         * @return {@code latchkey.registry.auto-renew}
         */
        public boolean isAutoRenew() {
            return autoRenew;
        }

        /**
         * Sets whether grants are renewed while held.
         *
         * @param autoRenew {@code latchkey.registry.auto-renew}
         */
        public void setAutoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
        }

        @Override
        public String toString() {
            return "registry[prefix '" + prefix + "', ttl " + ttl + (autoRenew ? ", auto-renew" : "") + "]";
        }
    }

    /** {@code latchkey.metrics.*}: the lock-micrometer binder, when lock-micrometer is on the class path. */
    public static class Metrics {
        /** Record metrics. */
        private boolean enabled = true;

        /** Tag meters by lock name, for at most this many names (0: no lock tag). */
        private int lockNameTag;

        /**
         * Whether metrics are recorded.
         *
         * @return {@code latchkey.metrics.enabled}
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether metrics are recorded.
         *
         * @param enabled {@code latchkey.metrics.enabled}
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * The most lock names tagged (0: no lock tag).
         *
         * @return {@code latchkey.metrics.lock-name-tag}
         */
        public int getLockNameTag() {
            return lockNameTag;
        }

        /**
         * Sets the most lock names tagged.
         *
         * @param lockNameTag {@code latchkey.metrics.lock-name-tag}
         */
        public void setLockNameTag(int lockNameTag) {
            this.lockNameTag = lockNameTag;
        }

        @Override
        public String toString() {
            return "metrics[" + (enabled ? "on" : "off") + ", lock tag " + lockNameTag + "]";
        }
    }
}
