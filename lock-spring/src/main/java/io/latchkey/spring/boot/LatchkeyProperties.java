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

    public String getUri() {
        return uri;
    }

    public void setUri(String uri) {
        this.uri = uri;
    }

    public Map<String, String> getSettings() {
        return settings;
    }

    public void setSettings(Map<String, String> settings) {
        this.settings = settings;
    }

    public Registry getRegistry() {
        return registry;
    }

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

        public String getPrefix() {
            return prefix;
        }

        public void setPrefix(String prefix) {
            this.prefix = prefix;
        }

        public Duration getTtl() {
            return ttl;
        }

        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        public boolean isAutoRenew() {
            return autoRenew;
        }

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

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getLockNameTag() {
            return lockNameTag;
        }

        public void setLockNameTag(int lockNameTag) {
            this.lockNameTag = lockNameTag;
        }

        @Override
        public String toString() {
            return "metrics[" + (enabled ? "on" : "off") + ", lock tag " + lockNameTag + "]";
        }
    }
}
