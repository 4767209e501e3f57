/**
 * The Redis backend: {@code redis://}, {@code rediss://} (TLS) and {@code redlock://} (Redlock over N
 * independent nodes), in the module shape of {@code docs/design.md} §5.2: {@code RedisBackendProvider},
 * {@code RedisSettings}, {@code RedisConnection}, {@code RedisLockBackend}, {@code RedisScripts},
 * {@code RedisWaiting}, {@code RedisRenewal}, and small classes named for what they do. It uses only the public
 * API ({@code io.latchkey}), the SPI ({@code io.latchkey.spi}), Jedis and SLF4J; never {@code io.latchkey.core}.
 */
package io.latchkey.redis;
