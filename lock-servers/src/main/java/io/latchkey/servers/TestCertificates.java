package io.latchkey.servers;

import io.latchkey.spi.PemTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * A throw-away certificate authority with one server and one client certificate, for starting TLS servers
 * (redis-server {@code --tls-port}, etcd {@code --cert-file}) in tests and connecting to them.
 *
 * <p>The files are made by the {@code openssl} command (Debian package {@code openssl}) in a fresh temporary
 * directory: RSA 2048 keys written as unencrypted PKCS#8 PEM ({@code BEGIN PRIVATE KEY}, which both Go and
 * Netty read), certificates valid for two days. The server certificate names {@code localhost} and
 * {@code 127.0.0.1} and may also be used as a client certificate (etcd peers need both usages); the client
 * certificate's common name is {@link #CLIENT_COMMON_NAME}.
 *
 * <p>Design: immutable once made, so one instance may be shared by the tests of a class; {@link #close()}
 * deletes the directory.
 */
public final class TestCertificates implements AutoCloseable {

    /** Common name in the client certificate (etcd maps it to a user when client-cert auth is on). */
    public static final String CLIENT_COMMON_NAME = "latchkey-client";

    private static final long OPENSSL_TIMEOUT_SECONDS = 60;

    private final Path directory;

    private TestCertificates(Path directory) {
        this.directory = directory;
    }

    /**
     * Makes a CA, a server certificate and a client certificate in a new temporary directory.
     *
     * @return the certificates
     * @throws IllegalStateException when {@code openssl} is missing or fails (its output is in the message)
     */
    public static TestCertificates create() {
        String openssl = Binaries.find("openssl")
                .map(Path::toString)
                .orElseThrow(() -> new IllegalStateException(
                        "openssl not found on PATH: install the Debian package openssl to make test certificates"));
        Path dir;
        try {
            dir = Files.createTempDirectory("latchkey-tls-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for test certificates", e);
        }
        TestCertificates certs = new TestCertificates(dir);
        try {
            run(
                    dir,
                    openssl,
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=latchkey-test-ca",
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.crt");
            Files.writeString(
                    dir.resolve("server.ext"),
                    "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
            Files.writeString(dir.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
            issue(dir, openssl, "server", "localhost");
            issue(dir, openssl, "client", CLIENT_COMMON_NAME);
            // Servers run as another user (PostgreSQL-style run-as) may need to read the files.
            for (String f : List.of("ca.crt", "server.crt", "server.key", "client.crt", "client.key")) {
                dir.resolve(f).toFile().setReadable(true, false);
            }
            dir.toFile().setReadable(true, false);
            dir.toFile().setExecutable(true, false);
            return certs;
        } catch (IOException | RuntimeException e) {
            certs.close();
            throw e instanceof RuntimeException re ? re : new UncheckedIOException((IOException) e);
        }
    }

    private static void issue(Path dir, String openssl, String who, String commonName) throws IOException {
        run(
                dir,
                openssl,
                "req",
                "-new",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=" + commonName,
                "-keyout",
                who + ".key",
                "-out",
                who + ".csr");
        run(
                dir,
                openssl,
                "x509",
                "-req",
                "-in",
                who + ".csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                who + ".ext",
                "-out",
                who + ".crt");
    }

    private static void run(Path dir, String... command) throws IOException {
        Process p = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!p.waitFor(OPENSSL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        "openssl did not finish in " + OPENSSL_TIMEOUT_SECONDS + " s: " + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IllegalStateException("interrupted while making test certificates", e);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(
                    "openssl failed (exit " + p.exitValue() + "): " + String.join(" ", command) + "\n" + output);
        }
    }

    /** @return the directory holding the files */
    public Path directory() {
        return directory;
    }

    /** @return the CA certificate (PEM) that signed both certificates */
    public Path caCertificate() {
        return directory.resolve("ca.crt");
    }

    /** @return the server certificate (PEM), for {@code localhost} and {@code 127.0.0.1} */
    public Path serverCertificate() {
        return directory.resolve("server.crt");
    }

    /** @return the server's private key (unencrypted PKCS#8 PEM) */
    public Path serverKey() {
        return directory.resolve("server.key");
    }

    /** @return the client certificate (PEM), common name {@link #CLIENT_COMMON_NAME} */
    public Path clientCertificate() {
        return directory.resolve("client.crt");
    }

    /** @return the client's private key (unencrypted PKCS#8 PEM) */
    public Path clientKey() {
        return directory.resolve("client.key");
    }

    /**
     * A TLS context that trusts only this CA and, when asked, presents the client certificate.
     *
     * @param withClientCertificate whether to present {@link #clientCertificate()} (mutual TLS)
     * @return a new context
     */
    public SSLContext sslContext(boolean withClientCertificate) {
        return PemTls.context(
                caCertificate(),
                withClientCertificate ? clientCertificate() : null,
                withClientCertificate ? clientKey() : null);
    }

    /**
     * The server's private key, for a server configured in-process (mongo-java-server's {@code enableSsl}).
     *
     * @return the key
     */
    public PrivateKey serverPrivateKey() {
        try {
            return readPrivateKey(serverKey());
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot read " + serverKey(), e);
        }
    }

    /**
     * The server certificate followed by the CA's, for a server configured in-process.
     *
     * @return the chain
     */
    public X509Certificate[] serverCertificateChain() {
        try {
            List<Certificate> chain = readCertificates(serverCertificate());
            chain.addAll(readCertificates(caCertificate()));
            return chain.toArray(X509Certificate[]::new);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot read " + serverCertificate(), e);
        }
    }

    private static List<Certificate> readCertificates(Path pem) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
    }

    private static PrivateKey readPrivateKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        int begin = text.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = text.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < 0) {
            throw new GeneralSecurityException(pem + " is not an unencrypted PKCS#8 PEM key");
        }
        String base64 = text.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end)
                .replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(base64)));
    }

    /** Deletes the directory and its files; never throws. */
    @Override
    public void close() {
        try (var files = Files.list(directory)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(directory);
        } catch (IOException | RuntimeException ignored) {
            // best effort: a temporary directory left behind is harmless
        }
    }

    @Override
    public String toString() {
        return "TestCertificates[" + directory + "]";
    }
}
