package io.latchkey.cli;

import io.latchkey.Latchkey;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Checks a lock name with the API's own rule (the one every {@code LockClient.lock(name)} applies) while
 * the command line is parsed, so that a bad name is a usage error before any store is contacted.
 * Stateless and thread-safe.
 */
public final class LockNameConverter implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
        try {
            return Latchkey.checkLockName(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
