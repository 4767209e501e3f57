package io.latchkey.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TestCertificates}: certificates chain to the CA, name loopback, and load into a TLS context. */
class TestCertificatesTest {

    @Test
    void serverAndClientCertificatesAreSignedByTheCaAndTheServerNamesLoopback() throws Exception {
        Path dir;
        try (TestCertificates certs = TestCertificates.create()) {
            dir = certs.directory();
            X509Certificate ca = read(certs.caCertificate());
            X509Certificate server = read(certs.serverCertificate());
            X509Certificate client = read(certs.clientCertificate());

            server.verify(ca.getPublicKey());
            client.verify(ca.getPublicKey());
            List<String> names = server.getSubjectAlternativeNames().stream()
                    .map(san -> String.valueOf(san.get(1)))
                    .toList();
            assertThat(names).contains("localhost", "127.0.0.1");
            assertThat(client.getSubjectX500Principal().getName())
                    .isEqualTo("CN=" + TestCertificates.CLIENT_COMMON_NAME);
            assertThat(Files.readString(certs.serverKey())).startsWith("-----BEGIN PRIVATE KEY-----");
            assertThat(certs.sslContext(true).getProtocol()).isEqualTo("TLS");
            assertThat(certs.sslContext(false).getSocketFactory()).isNotNull();
            assertThat(List.of(certs.caCertificate(), certs.clientKey())).allMatch(Files::isReadable);
        }
        assertThat(dir).doesNotExist();
    }

    private static X509Certificate read(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }
}
