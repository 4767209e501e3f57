package io.latchkey.spring.boot;

import io.latchkey.Latchkey;
import io.latchkey.LockClient;
import io.latchkey.micrometer.LatchkeyMetrics;
import io.latchkey.spring.LatchkeyLockRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Boot auto-configuration, active when {@code latchkey.uri} is set: a {@link LockClient} on that URI (closed
 * with the context), a {@link LatchkeyLockRegistry} as the application's {@link LockRegistry}, a health indicator
 * ({@code latchkey}) when spring-boot-health is present, and a {@link LatchkeyMetrics} binder when lock-micrometer is
 * present (Boot's metrics auto-configuration binds it to every registry). Each bean steps back if the application
 * defines its own.
 */
@AutoConfiguration
@ConditionalOnClass(LockClient.class)
@ConditionalOnProperty(prefix = "latchkey", name = "uri")
@EnableConfigurationProperties(LatchkeyProperties.class)
public class LatchkeyAutoConfiguration {

    /**
     * The application's client, connected to {@code latchkey.uri} with {@code latchkey.settings}; closed with the context.
     *
     * @param properties the {@code latchkey.*} properties
     * @return the client
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LockClient latchkeyLockClient(LatchkeyProperties properties) {
        return Latchkey.connect(properties.getUri(), properties.getSettings());
    }

    /**
     * Spring Integration's {@code LockRegistry} on the client, configured by {@code latchkey.registry.*}.
     *
     * @param client the application's client
     * @param properties the {@code latchkey.*} properties
     * @return the registry
     */
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    public LatchkeyLockRegistry latchkeyLockRegistry(LockClient client, LatchkeyProperties properties) {
        return LatchkeyLockRegistry.builder(client)
                .prefix(properties.getRegistry().getPrefix())
                .ttl(properties.getRegistry().getTtl())
                .autoRenew(properties.getRegistry().isAutoRenew())
                .build();
    }

    /** The {@code latchkey} health indicator, when spring-boot-health is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("latchkey")
    static class LatchkeyHealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "latchkeyHealthIndicator")
        LatchkeyHealthIndicator latchkeyHealthIndicator(LockClient client) {
            return new LatchkeyHealthIndicator(client);
        }
    }

    /** Latchkey's meters, when lock-micrometer and Micrometer are on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({LatchkeyMetrics.class, MeterRegistry.class})
    @ConditionalOnBooleanProperty(name = "latchkey.metrics.enabled", matchIfMissing = true)
    static class LatchkeyMetricsConfiguration {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        LatchkeyMetrics latchkeyMetrics(LockClient client, LatchkeyProperties properties) {
            return LatchkeyMetrics.builder(client)
                    .lockNameTag(properties.getMetrics().getLockNameTag())
                    .build();
        }
    }
}
