package io.latchkey.spi;

import java.util.regex.Pattern;

/**
 * The {@code namespace} setting every backend accepts: two clients with different namespaces on one store never see,
 * take or release each other's locks ({@code inspect}, {@code list}, {@code forceRelease} included). Each backend maps
 * it onto its store (a key prefix, a column, a node, an id prefix) so that no namespace and name ever give the same
 * key as another namespace and name, also when one namespace is a prefix of the other; the TCK's namespace rule
 * checks exactly that. The grammar is the one every store can take as it is: 1 to 64 letters, digits, {@code '.'},
 * {@code '_'} and {@code '-'}, or empty for none. Stateless.
 */
public final class Namespaces {
    /** The name of the setting, the same on every scheme. */
    public static final String SETTING = "namespace";

    private static final Pattern GRAMMAR = Pattern.compile("[A-Za-z0-9._-]{0,64}");

    private Namespaces() {}

    /**
     * Checks a namespace.
     *
     * @param namespace the namespace, empty for none
     * @return the namespace
     * @throws IllegalArgumentException naming what is allowed, if it is not a namespace
     */
    public static String check(String namespace) {
        if (namespace == null || !GRAMMAR.matcher(namespace).matches()) {
            throw new IllegalArgumentException("namespace must be 0 to 64 letters, digits, '.', '_' or '-', was "
                    + (namespace == null ? "null" : "'" + namespace.replaceAll("\\p{Cntrl}", "?") + "'"));
        }
        return namespace;
    }
}
