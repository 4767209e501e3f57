package io.latchkey.spi;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes passwords from URIs, settings and third-party messages before they appear in messages, logs,
 * {@code toString()} or CLI output. The one place that knows what a secret looks like.
 *
 * <p>Every form of the URI grammar is covered, for every scheme and for every host of a multi-host URI:
 * <ul>
 *   <li>{@code user:pw@host} becomes {@code user:***@host}, and {@code :pw@host} becomes {@code :***@host};</li>
 *   <li>{@code pw@host} (user-info without a colon) becomes {@code ***@host}: Redis reads a lone user-info as
 *       a password, and a redaction cannot know which scheme's grammar the reader had in mind, so a lone
 *       user-info is always hidden (a user name alone is rarely what someone debugging needs);</li>
 *   <li>query and JDBC parameters whose key names a secret ({@code password}, {@code sslpassword},
 *       {@code trustStorePassword}, {@code pwd}, {@code secret}, {@code token}, ...) in {@code ?k=v&k=v} and
 *       {@code ;k=v} form have their value replaced by {@code ***};</li>
 *   <li>percent-encoded passwords are hidden whole, encoded or not.</li>
 * </ul>
 */
public final class Redaction {
    /** What a secret is replaced with. */
    public static final String MASK = "***";

    /** A key that names a secret: any key ending in password/passwd/pwd/pass, or naming a secret/token/credential. */
    private static final Pattern SECRET_KEY =
            Pattern.compile("(?i)[\\w.\\-]*(?:password|passwd|pwd|pass|secret|token|credentials?|apikey|api_key)");
    /** {@code ?password=x&}, {@code &sslpassword=x}, {@code ;password=x}: the value up to the next separator. */
    private static final Pattern SECRET_PARAM =
            Pattern.compile("(?i)(?<=^|[?&;,\\s])(" + SECRET_KEY.pattern() + ")=([^&;#\\s]*)");

    /** One host of a multi-host authority: a name or address, an optional numeric port. */
    private static final Pattern HOST_PORT = Pattern.compile("(?:[\\w.\\-%]*|\\[[0-9a-fA-F:.%\\w]*])(?::\\d*)?");

    private Redaction() {}

    /**
     * The URI text with every user-info password and every secret parameter replaced by {@code ***}.
     *
     * @param uri a URI's text, possibly with credentials
     * @return the text with secrets masked
     */
    @SuppressWarnings("NullAway") // null in, null out, for callers without null checking (as it always was)
    public static String redact(String uri) {
        if (uri == null) {
            return null;
        }
        String s = redactUserInfo(uri);
        return SECRET_PARAM.matcher(s).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + "=" + MASK));
    }

    /**
     * Whether a settings key names a secret ({@code password}, {@code tlsKeyPassword}, {@code token} ...).
     *
     * @param key a settings key
     * @return whether its value is a secret
     */
    public static boolean isSecretKey(String key) {
        return key != null && SECRET_KEY.matcher(key).matches();
    }

    /**
     * A sorted copy of the settings for display, with the value of every secret key replaced by {@code ***}.
     *
     * @param settings the settings to show
     * @return the redacted, sorted copy
     */
    public static Map<String, String> redact(Map<String, String> settings) {
        Map<String, String> out = new TreeMap<>();
        if (settings != null) {
            settings.forEach((k, v) -> out.put(k, isSecretKey(k) ? MASK : redact(v)));
        }
        return out;
    }

    /**
     * Text from a third party (a driver's exception message, a server's reply) with the URI's passwords and
     * every secret setting removed wherever they appear, literally or percent-encoded, plus the usual URI
     * redaction. Use it on any message that may echo what the caller passed in.
     *
     * @param text the third party's text
     * @param uri the URI whose secrets are removed
     * @param settings the settings whose secret values are removed
     * @return the text without any secret
     */
    @SuppressWarnings("NullAway") // null in, null out, for callers without null checking (as it always was)
    public static String scrub(String text, String uri, Map<String, String> settings) {
        if (text == null) {
            return null;
        }
        String out = redact(text);
        for (String secret : secretsOf(uri, settings)) {
            out = out.replace(secret, MASK);
        }
        return out;
    }

    /**
     * The literal secrets a URI and its settings carry: the user-info password (or the lone user-info), the
     * values of secret parameters and settings, each also in its percent-decoded form. Values shorter than
     * three characters are left out, so that scrubbing does not mangle ordinary text.
     *
     * @param uri the URI's text
     * @param settings the settings
     * @return the secrets to scrub
     */
    public static Set<String> secretsOf(String uri, Map<String, String> settings) {
        Set<String> secrets = new LinkedHashSet<>();
        if (uri != null) {
            for (String userInfo : userInfos(uri)) {
                int colon = userInfo.indexOf(':');
                addSecret(secrets, colon >= 0 ? userInfo.substring(colon + 1) : userInfo);
            }
            Matcher m = SECRET_PARAM.matcher(uri);
            while (m.find()) {
                addSecret(secrets, m.group(2));
            }
        }
        if (settings != null) {
            settings.forEach((k, v) -> {
                if (isSecretKey(k)) {
                    addSecret(secrets, v);
                }
            });
        }
        return secrets;
    }

    private static void addSecret(Set<String> secrets, String value) {
        if (value == null || value.length() < 3) {
            return;
        }
        secrets.add(value);
        try {
            secrets.add(URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException malformed) {
            // not valid percent-encoding: the literal form is all there is
        }
    }

    /*
     * User-info sits between "//" (or the ',' that starts another host of a multi-host URI) and the last '@'
     * of that authority. The authority ends at the first '/', '?' or '#' after its last '@', so a password
     * holding a raw '@' is hidden whole.
     */
    private static String redactUserInfo(String uri) {
        StringBuilder out = new StringBuilder(uri.length());
        int from = 0;
        int slashes;
        while ((slashes = uri.indexOf("//", from)) >= 0) {
            int start = slashes + 2;
            int end = authorityEnd(uri, start);
            out.append(uri, from, start);
            out.append(redactAuthority(uri.substring(start, end)));
            from = end;
        }
        out.append(uri, from, uri.length());
        return out.toString();
    }

    private static java.util.List<String> userInfos(String uri) {
        java.util.List<String> infos = new java.util.ArrayList<>();
        int from = 0;
        int slashes;
        while ((slashes = uri.indexOf("//", from)) >= 0) {
            int start = slashes + 2;
            int end = authorityEnd(uri, start);
            for (String host : uri.substring(start, end).split(",")) {
                int at = host.lastIndexOf('@');
                if (at >= 0) {
                    infos.add(host.substring(0, at));
                }
            }
            from = end;
        }
        return infos;
    }

    /*
     * The authority runs from its start to the first '/' after its last '@', and never past the first '?',
     * '#' or white space (an '@' in a query, such as an e-mail address, is not user-info).
     */
    private static int authorityEnd(String uri, int start) {
        int limit = uri.length();
        for (int i = start; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '?' || c == '#' || Character.isWhitespace(c)) {
                limit = i;
                break;
            }
        }
        int lastAt = uri.lastIndexOf('@', limit - 1);
        for (int i = Math.max(start, lastAt); i < limit; i++) {
            if (uri.charAt(i) == '/') {
                return i;
            }
        }
        return limit;
    }

    private static String redactAuthority(String authority) {
        if (authority.indexOf('@') < 0) {
            return authority;
        }
        String[] hosts = authority.split(",", -1);
        StringBuilder sb = new StringBuilder(authority.length());
        for (int i = 0; i < hosts.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            String host = hosts[i];
            int at = host.lastIndexOf('@');
            if (at < 0) {
                // a password with a raw ',' splits into a piece that is no host[:port]: hide it too
                sb.append(HOST_PORT.matcher(host).matches() ? host : MASK);
                continue;
            }
            String userInfo = host.substring(0, at);
            int colon = userInfo.indexOf(':');
            sb.append(colon >= 0 ? userInfo.substring(0, colon + 1) + MASK : MASK)
                    .append(host, at, host.length());
        }
        return sb.toString();
    }
}
