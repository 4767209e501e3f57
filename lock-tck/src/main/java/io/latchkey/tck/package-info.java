/**
 * The technology compatibility kit: the rules every backend must pass, as JUnit 5 default methods grouped
 * by topic ({@code ExclusionRules}, {@code FencingRules}, {@code LeaseRules}, {@code WaitingRules}, ...) and
 * combined in {@link io.latchkey.tck.LockBackendTck}, which a backend's test subclasses with a factory for
 * its backend. {@code TckContext} gives each rule fresh clients and names; {@code TckSettings} the timing
 * allowances; {@code LockHistory} and the detectors record what happened so that overlaps are found.
 *
 * <p>Depends on the public API ({@code io.latchkey}), the SPI ({@code io.latchkey.spi}), JUnit Jupiter and
 * Awaitility; never on {@code io.latchkey.core} nor on any backend.
 */
package io.latchkey.tck;
