package io.latchkey.spi;

/** The answer to an acquire attempt: a {@link Grant}, or {@link Busy} when another owner holds the lock. */
public sealed interface AcquireResult permits Grant, Busy {}
