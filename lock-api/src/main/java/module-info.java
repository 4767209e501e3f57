/**
 * Latchkey's user API ({@code io.latchkey}), SPI ({@code io.latchkey.spi}), coordination recipes
 * ({@code io.latchkey.recipes}) and in-memory backend ({@code io.latchkey.mem}). The core ({@code io.latchkey.core}) is internal.
 */
module io.latchkey {
    requires org.slf4j;
    // nullness annotations only: needed to compile against the API, not to run it
    requires static transitive org.jspecify;

    exports io.latchkey;
    exports io.latchkey.spi;
    exports io.latchkey.mem;
    exports io.latchkey.recipes;

    uses io.latchkey.spi.LockBackendProvider;

    provides io.latchkey.spi.LockBackendProvider with
            io.latchkey.mem.MemoryBackendProvider;
}
