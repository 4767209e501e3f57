/**
 * Latchkey on MongoDB (the official sync driver): {@code MongoBackendProvider} (the {@code ServiceLoader} entry),
 * {@code MongoSettings}, {@code MongoConnection} (the client's lifecycle and one-line errors),
 * {@code MongoLockBackend} (the SPI) and {@code MongoStatements} (the store's filters and updates). It uses only
 * {@code io.latchkey}, {@code io.latchkey.spi} and the driver; never {@code io.latchkey.core}.
 */
package io.latchkey.mongodb;
