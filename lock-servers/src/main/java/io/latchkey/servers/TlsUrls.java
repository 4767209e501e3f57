package io.latchkey.servers;

import java.nio.file.Path;
import java.util.regex.Pattern;

/** File paths as JDBC URL parameter values, for the TLS URLs of the database recipes. Stateless. */
final class TlsUrls {
    /** Characters a path may hold to be written into a URL's query as it is (no percent-encoding needed). */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./,-]+");

    private TlsUrls() {}

    /**
     * The path's text, for a {@code ?key=path} parameter.
     *
     * @param file the file
     * @return its text
     * @throws IllegalArgumentException if it is null or has a character other than letters, digits and {@code _./,-}
     */
    static String plainPath(Path file) {
        String text = file == null ? "" : file.toString();
        if (!PLAIN.matcher(text).matches()) {
            throw new IllegalArgumentException("a certificate path in a JDBC URL may hold only letters, digits and"
                    + " _./,- (no spaces, '&', '?', '%' or ';'), was '" + file + "'");
        }
        return text;
    }
}
