package io.latchkey.redis;

import io.latchkey.spi.LockBackendProvider;

/** The superclass tests hide from {@link SubclassedTestRedisProvider}. */
public abstract class TestRedisProviderBase implements LockBackendProvider {}
