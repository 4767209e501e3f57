package io.latchkey.testing;

/** Stands for a third-party class (a driver, a client library) that a provider needs; tests hide it. */
public final class MissingDependency {
    public static String version() {
        return "1.0";
    }
}
