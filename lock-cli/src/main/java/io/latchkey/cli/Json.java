package io.latchkey.cli;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes the flat JSON that {@code --json} prints: objects of strings, numbers, booleans and nulls, and
 * arrays of such objects. Deliberately tiny: the CLI only writes JSON, never reads it, and the parent POM
 * pins no JSON library. Strings are escaped per RFC 8259 (quotes, backslash, control characters).
 * Stateless and thread-safe.
 */
final class Json {
    private Json() {
    }

    static String value(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof Map<?, ?> m) {
            return object(m);
        }
        if (v instanceof List<?> l) {
            StringBuilder sb = new StringBuilder("[");
            for (Iterator<?> it = l.iterator(); it.hasNext();) {
                sb.append(value(it.next()));
                if (it.hasNext()) {
                    sb.append(',');
                }
            }
            return sb.append(']').toString();
        }
        return string(v.toString());
    }

    static String object(Map<?, ?> fields) {
        StringBuilder sb = new StringBuilder("{");
        for (Iterator<? extends Map.Entry<?, ?>> it = fields.entrySet().iterator(); it.hasNext();) {
            Map.Entry<?, ?> e = it.next();
            sb.append(string(String.valueOf(e.getKey()))).append(':').append(value(e.getValue()));
            if (it.hasNext()) {
                sb.append(',');
            }
        }
        return sb.append('}').toString();
    }

    static String string(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == '\u2028' || c == '\u2029') {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
