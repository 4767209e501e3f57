package io.latchkey.spi;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The TLS settings every backend that takes PEM files shares ({@code tlsCa}, {@code tlsCert}, {@code tlsKey}: PEM
 * files, the key as unencrypted PKCS#8), turned into an {@link SSLContext} for that backend's client alone, without
 * touching JVM-wide properties. Every problem with a file is an {@link IllegalArgumentException} naming the setting
 * and the file, raised when the backend is created, not at the first handshake. Host names stay verified: use
 * {@link #hostVerifyingParameters()} where the client takes parameters (the server certificate must name the host
 * of the URI).
 *
 * <p>Stateless; the context it returns is shared by every connection of a backend.
 */
public final class PemTls {
    private static final String BEGIN_PKCS8 = "-----BEGIN PRIVATE KEY-----";
    private static final String END_PKCS8 = "-----END PRIVATE KEY-----";

    private PemTls() {}

    /**
     * Parameters for every TLS connection: verify that the server certificate names the host.
     *
     * @return new parameters with HTTPS endpoint identification
     */
    public static SSLParameters hostVerifyingParameters() {
        return withHostVerification(new SSLParameters());
    }

    /**
     * A context that trusts {@code ca} (else the JVM's default trust store) and presents {@code cert} with
     * {@code key} when both are given (mutual TLS).
     *
     * @param ca a PEM file of the certificates to trust, or null for the JVM's default trust store
     * @param cert a PEM file with the client's certificate chain, or null for no client certificate
     * @param key the client certificate's unencrypted PKCS#8 PEM key; given exactly when {@code cert} is
     * @return the context
     * @throws IllegalArgumentException naming the setting and the file, for a file that is missing, unreadable,
     *         not PEM, encrypted, or a key that does not belong to the certificate
     */
    public static SSLContext context(@Nullable Path ca, @Nullable Path cert, @Nullable Path key) {
        checkSettings(null, ca, cert, key);
        TrustManager[] trust = ca == null ? null : trustManagers(ca);
        KeyManager[] keys = cert == null || key == null ? null : keyManagers(cert, key);
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "cannot set up TLS with tlsCa=" + ca + ", tlsCert=" + cert + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks the TLS settings of a settings builder together: {@code tlsCert} and {@code tlsKey} go together, and
     * {@code tls=false} with a file is a contradiction (a file implies TLS).
     *
     * @param tls the {@code tls} setting, or null if not given
     * @param ca the {@code tlsCa} setting, or null
     * @param cert the {@code tlsCert} setting, or null
     * @param key the {@code tlsKey} setting, or null
     * @throws IllegalArgumentException naming the settings that do not fit
     */
    public static void checkSettings(
            @Nullable Boolean tls, @Nullable Path ca, @Nullable Path cert, @Nullable Path key) {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("tlsCert and tlsKey (client certificate and its unencrypted PKCS#8 key)"
                    + " go together; give both or neither (given: " + (cert != null ? "tlsCert" : "tlsKey") + ")");
        }
        if (Boolean.FALSE.equals(tls) && (ca != null || cert != null)) {
            throw new IllegalArgumentException("tls=false contradicts " + (ca != null ? "tlsCa" : "tlsCert")
                    + ", which only make sense over TLS; drop tls=false (a TLS file implies TLS)");
        }
    }

    /**
     * A PEM file setting as a builder takes it: a non-empty path (the file is read and checked by
     * {@link #context}).
     *
     * @param path the path
     * @param setting the setting's name, for the message
     * @return the path
     * @throws IllegalArgumentException for a null or empty path
     */
    public static Path requirePath(@Nullable Path path, String setting) {
        if (path == null || path.toString().isEmpty()) {
            throw new IllegalArgumentException(setting + " must be the path of a PEM file, was " + path);
        }
        return path;
    }

    /**
     * One TLS handshake with {@code address} as the backend's client will make it (this context, the host name
     * checked), before that client starts: a client library that fails a handshake often reports it only as a
     * server that never answers, after its own timeout.
     *
     * @param address the server that accepted a TCP connection (see {@link Reachability})
     * @param context the client's TLS context
     * @param timeout the longest the connect and the handshake may take
     * @return null if the handshake succeeded, else the problem in one line naming the server (no secret)
     */
    public static @Nullable String handshakeProblem(InetSocketAddress address, SSLContext context, Duration timeout) {
        String host = address.getHostString();
        String server = host + ":" + address.getPort();
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress(host, address.getPort()), millis);
            socket.setSoTimeout(millis);
            socket.setSSLParameters(withHostVerification(socket.getSSLParameters()));
            socket.startHandshake();
            return null;
        } catch (SSLException e) {
            return "TLS handshake with " + server + " failed: " + what(e) + " (" + deepest(e) + ")";
        } catch (IOException e) {
            return "TLS handshake with " + server + " failed: " + deepest(e) + " (is this the server's TLS port?)";
        }
    }

    private static SSLParameters withHostVerification(SSLParameters p) {
        p.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host we dialled
        return p;
    }

    /** The TLS problem in the SPI's words, with the setting to check. */
    private static String what(Throwable e) {
        String problem = StoreErrors.tlsProblem(e);
        if (problem == null) {
            return "the handshake failed";
        }
        return problem.equals(StoreErrors.UNTRUSTED_CERTIFICATE)
                ? problem + " (no CA in tlsCa, or in the JVM's trust store without it, signed it)"
                : problem;
    }

    private static String deepest(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String msg = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return msg.replaceAll("\\s+", " ").trim();
    }

    private static TrustManager[] trustManagers(Path ca) {
        List<X509Certificate> certificates = certificates("tlsCa", ca);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                store.setCertificateEntry("ca-" + i, certificates.get(i));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            return tmf.getTrustManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(
                    "tlsCa file " + ca + " cannot be used as a trust store: " + e.getMessage(), e);
        }
    }

    private static KeyManager[] keyManagers(Path cert, Path key) {
        List<X509Certificate> chain = certificates("tlsCert", cert);
        PrivateKey privateKey = privateKey(key, chain.get(0).getPublicKey());
        checkPair(privateKey, chain.get(0).getPublicKey(), cert, key);
        try {
            // an in-memory store only; the password protects nothing and never leaves this method
            char[] password = Long.toHexString(new SecureRandom().nextLong()).toCharArray();
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("client", privateKey, password, chain.toArray(Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, password);
            return kmf.getKeyManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(
                    "tlsCert " + cert + " and tlsKey " + key + " cannot be used as a client " + "certificate: "
                            + e.getMessage(),
                    e);
        }
    }

    private static List<X509Certificate> certificates(String setting, Path file) {
        byte[] bytes = read(setting, file);
        String text = new String(bytes, StandardCharsets.US_ASCII);
        if (!text.contains("-----BEGIN CERTIFICATE-----")) {
            throw new IllegalArgumentException(setting + " file " + file
                    + " holds no PEM certificate (expected a block " + "starting with -----BEGIN CERTIFICATE-----)");
        }
        Collection<? extends Certificate> parsed;
        try {
            parsed = java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    setting + " file " + file + " is not a valid PEM certificate file: " + e.getMessage(), e);
        }
        List<X509Certificate> out = new ArrayList<>();
        for (Certificate c : parsed) {
            if (c instanceof X509Certificate x) {
                out.add(x);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(setting + " file " + file + " holds no X.509 certificate");
        }
        return out;
    }

    private static PrivateKey privateKey(Path file, PublicKey certificateKey) {
        String text = new String(read("tlsKey", file), StandardCharsets.US_ASCII);
        if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
            throw new IllegalArgumentException(
                    "tlsKey file " + file + " is encrypted; give an unencrypted PKCS#8 PEM key "
                            + "(openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem) and protect the file instead");
        }
        int begin = text.indexOf(BEGIN_PKCS8);
        int end = text.indexOf(END_PKCS8);
        if (begin < 0 || end < begin) {
            String found = text.contains("-----BEGIN RSA PRIVATE KEY-----")
                    ? "a PKCS#1 RSA key"
                    : text.contains("-----BEGIN EC PRIVATE KEY-----") ? "a SEC1 EC key" : "no PKCS#8 key";
            throw new IllegalArgumentException("tlsKey file " + file + " holds " + found + "; expected an unencrypted "
                    + "PKCS#8 PEM key (-----BEGIN PRIVATE KEY-----); convert it with "
                    + "openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(begin + BEGIN_PKCS8.length(), end));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tlsKey file " + file + " holds a damaged PEM block (bad base64)", e);
        }
        String algorithm = certificateKey.getAlgorithm();
        try {
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "tlsKey file " + file + " is not a valid PKCS#8 " + algorithm
                            + " key matching the certificate in tlsCert: " + e.getMessage(),
                    e);
        }
    }

    /** A key that does not belong to the certificate would only fail later, in an obscure handshake error. */
    private static void checkPair(PrivateKey key, PublicKey publicKey, Path cert, Path keyFile) {
        String algorithm = switch (publicKey.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> publicKey.getAlgorithm();
            default -> null;
        };
        if (algorithm == null) {
            return; // an unusual algorithm: the handshake will tell
        }
        try {
            byte[] probe = "latchkey tls key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            if (verifier.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // fall through to the mismatch message
        }
        throw new IllegalArgumentException(
                "tlsKey file " + keyFile + " is not the private key of the certificate in tlsCert file " + cert);
    }

    private static byte[] read(String setting, Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(setting + " file " + file + " does not exist or is not a regular file");
        }
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(setting + " file " + file + " cannot be read: " + e, e);
        }
    }
}
