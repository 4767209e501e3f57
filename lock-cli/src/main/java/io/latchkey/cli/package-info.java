/**
 * The {@code latchkey} command: {@code exec} (run a command under a lock), {@code list}, {@code inspect},
 * {@code release}, {@code verify} (the TCK against a URI) and {@code bench} (with throw-away local servers),
 * parsed with picocli; usage errors exit 64 with one line that says what to type.
 *
 * <p>Uses only the public API ({@code io.latchkey}), the SPI ({@code io.latchkey.spi}: the duration grammar, URI
 * parsing, redaction), the public TCK ({@code io.latchkey.tck}) for {@code verify}, and lock-servers
 * ({@code io.latchkey.servers}) for the servers {@code bench} starts; never {@code io.latchkey.core}.
 */
package io.latchkey.cli;
