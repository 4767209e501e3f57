package io.latchkey.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/**
 * Writes what {@code --json} prints (objects of strings, numbers, booleans and nulls, and arrays of such
 * objects) with Jackson, so escaping follows RFC 8259 without code of our own. Field order is the map's
 * iteration order (callers pass ordered maps). The mapper is thread-safe once configured.
 */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    static String value(Object v) {
        try {
            return MAPPER.writeValueAsString(v);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "could not write JSON for " + v.getClass().getSimpleName(), e);
        }
    }

    static String object(Map<?, ?> fields) {
        return value(fields);
    }
}
