package io.krill.compat.security;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away PKI in a temp folder: a CA, certificates signed by it (openssl), and Java key and trust
 * stores built from them (PKCS12 or JKS), plus PEM files for kcat. One per test class; {@link #close}
 * deletes it.
 */
final class TestPki implements AutoCloseable {
    static final String PASSWORD = "test-secret";

    final Path dir;
    final Path caPem;

    private TestPki(Path dir) {
        this.dir = dir;
        this.caPem = dir.resolve("ca.pem");
    }

    /** A new CA named {@code caName}. */
    static TestPki create(String caName) {
        try {
            TestPki pki = new TestPki(Files.createTempDirectory("krill-pki"));
            pki.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                    "-days", "3", "-subj", "/CN=" + caName);
            return pki;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Files of one signed identity: key and certificate (PEM), chain with the CA. */
    record Identity(String name, Path key, Path cert, TestPki pki) {
        /** One PEM file with the private key (PKCS#8), the certificate and the CA: a PEM key store. */
        Path pemBundle() {
            Path file = pki.dir.resolve(name + "-bundle.pem");
            try {
                Files.writeString(file, Files.readString(key) + Files.readString(cert) + Files.readString(pki.caPem));
                return file;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** A key store with this identity (key + chain), of {@code type} PKCS12 or JKS. */
        Path keystore(String type) {
            Path file = pki.dir.resolve(name + "." + type.toLowerCase());
            if (Files.exists(file)) {
                return file;
            }
            try {
                KeyStore store = KeyStore.getInstance(type);
                store.load(null, null);
                store.setKeyEntry(name, privateKey(key), PASSWORD.toCharArray(),
                        new Certificate[] {certificate(cert), certificate(pki.caPem)});
                try (OutputStream out = Files.newOutputStream(file)) {
                    store.store(out, PASSWORD.toCharArray());
                }
                return file;
            } catch (IOException | GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * A key and a certificate signed by this CA for {@code subject} (openssl form, e.g.
     * {@code /OU=Clients/CN=alice}), valid for localhost and 127.0.0.1.
     */
    Identity issue(String name, String subject) {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj", subject);
        write(name + ".ext", "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext");
        return new Identity(name, dir.resolve(name + ".key"), dir.resolve(name + ".pem"), this);
    }

    /** Like {@link #issue} but the certificate expired yesterday (openssl ca with explicit dates). */
    Identity issueExpired(String name, String subject) {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj", subject);
        write("index.txt", "");
        write("serial", "1000\n");
        write("ca.cnf", """
                [ ca ]
                default_ca = test
                [ test ]
                dir = .
                database = index.txt
                serial = serial
                new_certs_dir = .
                certificate = ca.pem
                private_key = ca.key
                default_md = sha256
                policy = any
                unique_subject = no
                [ any ]
                commonName = supplied
                organizationalUnitName = optional
                """);
        openssl("ca", "-batch", "-config", "ca.cnf", "-in", name + ".csr", "-out", name + ".pem", "-notext",
                "-startdate", "20200101000000Z", "-enddate", "20200102000000Z");
        return new Identity(name, dir.resolve(name + ".key"), dir.resolve(name + ".pem"), this);
    }

    /** A trust store holding only this CA (written once per type). */
    synchronized Path truststore(String type) {
        Path file = dir.resolve("truststore." + type.toLowerCase());
        if (Files.exists(file)) {
            return file;
        }
        try {
            KeyStore store = KeyStore.getInstance(type);
            store.load(null, null);
            store.setCertificateEntry("ca", certificate(caPem));
            try (OutputStream out = Files.newOutputStream(file)) {
                store.store(out, PASSWORD.toCharArray());
            }
            return file;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private void openssl(String... args) {
        List<String> command = new ArrayList<>();
        command.add("openssl");
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void write(String name, String content) {
        try {
            Files.writeString(dir.resolve(name), content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Certificate certificate(Path pem) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem);
        if (!text.contains("BEGIN PRIVATE KEY")) {
            throw new GeneralSecurityException("expected a PKCS#8 key in " + pem);
        }
        String base64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }

    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
