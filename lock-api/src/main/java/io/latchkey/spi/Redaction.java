package io.latchkey.spi;

import java.util.regex.Pattern;

/** Removes passwords from URIs before they appear in messages, logs or {@code toString()}. */
public final class Redaction {
    /** {@code scheme://user:password@host} → {@code scheme://user:***@host}. */
    private static final Pattern USER_INFO_PASSWORD = Pattern.compile("(?<=//)([^/@:]*):[^/@]*@");
    /** {@code ?password=x&} or {@code ;password=x} in query strings and JDBC URLs. */
    private static final Pattern PASSWORD_PARAM =
            Pattern.compile("(?i)((?:password|passwd|pwd|secret|token)=)[^&;]*");

    private Redaction() {
    }

    /** The URI text with user-info passwords and password parameters replaced by {@code ***}. */
    public static String redact(String uri) {
        if (uri == null) {
            return null;
        }
        String s = USER_INFO_PASSWORD.matcher(uri).replaceAll("$1:***@");
        return PASSWORD_PARAM.matcher(s).replaceAll("$1***");
    }
}
