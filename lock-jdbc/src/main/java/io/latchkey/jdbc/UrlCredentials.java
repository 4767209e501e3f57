package io.latchkey.jdbc;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Credentials written as URI user-info ({@code jdbc:postgresql://user:pw@host/db}), taken out of the URL.
 *
 * <p>Neither pgjdbc nor the MariaDB driver reads user-info: pgjdbc takes {@code user:pw@host} for a host name
 * (an {@code UnknownHostException} that carries the password), and HikariCP logs the URL it is given at DEBUG,
 * where it masks {@code password=} parameters but not user-info. So the user and password go to the pool as
 * its user name and password, percent-decoded, and the driver and the pool see the URL without them.
 */
record UrlCredentials(String url, String user, String password) {

    /** The URL without user-info, and the user and password it carried ({@code null} where absent). */
    static UrlCredentials of(String jdbcUrl) {
        if (jdbcUrl.regionMatches(true, 0, "jdbc:h2:", 0, 8)) {
            UrlCredentials info = userInfo(jdbcUrl);
            UrlCredentials params = ofH2(info.url());
            if (info.user() != null && info.password() == null) {
                // H2 has no user-info convention; a lone one is taken as the password, as Redaction hides it
                return new UrlCredentials(params.url(), params.user(), info.user());
            }
            return new UrlCredentials(
                    params.url(),
                    info.user() != null ? info.user() : params.user(),
                    info.password() != null ? info.password() : params.password());
        }
        return userInfo(jdbcUrl);
    }

    private static UrlCredentials userInfo(String jdbcUrl) {
        int slashes = jdbcUrl.indexOf("://");
        if (slashes < 0) {
            return new UrlCredentials(jdbcUrl, null, null);
        }
        int start = slashes + 3;
        int end = jdbcUrl.length();
        for (int i = start; i < jdbcUrl.length(); i++) {
            char c = jdbcUrl.charAt(i);
            if (c == '?' || c == ';' || c == '#') {
                end = i;
                break;
            }
        }
        int at = jdbcUrl.lastIndexOf('@', end - 1);
        int slash = jdbcUrl.indexOf('/', Math.max(start, at));
        if (at < start || (slash >= 0 && slash < at)) {
            return new UrlCredentials(jdbcUrl, null, null);
        }
        String userInfo = jdbcUrl.substring(start, at);
        String stripped = jdbcUrl.substring(0, start) + jdbcUrl.substring(at + 1);
        int colon = userInfo.indexOf(':');
        String user = colon >= 0 ? userInfo.substring(0, colon) : userInfo;
        String password = colon >= 0 ? userInfo.substring(colon + 1) : null;
        return new UrlCredentials(
                stripped, user.isEmpty() ? null : decode(user), password == null ? null : decode(password));
    }

    /*
     * H2 reads credentials from ;USER=…;PASSWORD=… (any case) and not from user-info. HikariCP masks only a
     * lower-case "password=" when it logs the URL, so both go to the pool instead.
     */
    private static UrlCredentials ofH2(String jdbcUrl) {
        String user = null;
        String password = null;
        StringBuilder rest = new StringBuilder();
        String[] parts = jdbcUrl.split(";", -1);
        rest.append(parts[0]);
        for (int i = 1; i < parts.length; i++) {
            String part = parts[i];
            String key =
                    part.contains("=") ? part.substring(0, part.indexOf('=')).trim() : "";
            if (key.equalsIgnoreCase("USER")) {
                user = part.substring(part.indexOf('=') + 1);
            } else if (key.equalsIgnoreCase("PASSWORD")) {
                password = part.substring(part.indexOf('=') + 1);
            } else {
                rest.append(';').append(part);
            }
        }
        return new UrlCredentials(rest.toString(), user, password);
    }

    /** Never the password: a record's own toString would print it. */
    @Override
    public String toString() {
        return "UrlCredentials[url=" + io.latchkey.spi.Redaction.redact(url) + ", user=" + user + ", password="
                + (password == null ? "none" : io.latchkey.spi.Redaction.MASK) + "]";
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notEncoded) {
            return s;
        }
    }
}
