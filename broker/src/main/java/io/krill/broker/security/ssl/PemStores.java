package io.krill.broker.security.ssl;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * {@code ssl.keystore.type=PEM} and {@code ssl.truststore.type=PEM} as Kafka reads them from files: a key
 * store file holds a PKCS#8 private key ({@code BEGIN PRIVATE KEY}, or {@code BEGIN ENCRYPTED PRIVATE KEY}
 * with {@code ssl.key.password}) and its certificate chain; a trust store file holds certificates.
 * Turned into in-memory key stores for the JDK's key and trust managers. Stateless; thread-safe.
 */
final class PemStores {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
    private static final char[] NO_PASSWORD = new char[0];

    private PemStores() {
    }

    /** A key store with one entry ("key"), protected by an empty password. */
    static KeyStore keyStore(Path file, String keyPassword) throws IOException, GeneralSecurityException {
        PrivateKey key = null;
        List<Certificate> chain = new ArrayList<>();
        Matcher m = BLOCK.matcher(Files.readString(file, StandardCharsets.US_ASCII));
        while (m.find()) {
            byte[] der = Base64.getMimeDecoder().decode(m.group(2));
            switch (m.group(1)) {
                case "PRIVATE KEY" -> key = privateKey(new PKCS8EncodedKeySpec(der));
                case "ENCRYPTED PRIVATE KEY" -> key = privateKey(decrypt(der, keyPassword, file));
                case "CERTIFICATE" -> chain.add(certificate(der));
                default -> throw new GeneralSecurityException("unsupported PEM block " + m.group(1) + " in " + file
                        + " (use PKCS#8: openssl pkcs8 -topk8)");
            }
        }
        if (key == null || chain.isEmpty()) {
            throw new GeneralSecurityException(file + " needs a PKCS#8 private key and its certificate chain");
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("key", key, NO_PASSWORD, chain.toArray(Certificate[]::new));
        return store;
    }

    /** A trust store with every certificate of the file. */
    static KeyStore trustStore(Path file) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        Matcher m = BLOCK.matcher(Files.readString(file, StandardCharsets.US_ASCII));
        int i = 0;
        while (m.find()) {
            if (m.group(1).equals("CERTIFICATE")) {
                store.setCertificateEntry("ca-" + i++, certificate(Base64.getMimeDecoder().decode(m.group(2))));
            }
        }
        if (i == 0) {
            throw new GeneralSecurityException(file + " holds no certificate");
        }
        return store;
    }

    /** The password the key store from {@link #keyStore} protects its key with. */
    static char[] keyPassword() {
        return NO_PASSWORD;
    }

    private static Certificate certificate(byte[] der) throws GeneralSecurityException {
        return CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
    }

    private static PKCS8EncodedKeySpec decrypt(byte[] der, String password, Path file) throws IOException,
            GeneralSecurityException {
        if (password == null) {
            throw new GeneralSecurityException(file + " holds an encrypted key: set ssl.key.password");
        }
        EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
        SecretKeyFactory factory = SecretKeyFactory.getInstance(info.getAlgName());
        Cipher cipher = Cipher.getInstance(info.getAlgName());
        cipher.init(Cipher.DECRYPT_MODE, factory.generateSecret(new PBEKeySpec(password.toCharArray())),
                info.getAlgParameters());
        return info.getKeySpec(cipher);
    }

    private static PrivateKey privateKey(PKCS8EncodedKeySpec spec) throws GeneralSecurityException {
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "DSA")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException e) {
                // not this algorithm: try the next
            }
        }
        throw new GeneralSecurityException("unsupported private key algorithm");
    }
}
