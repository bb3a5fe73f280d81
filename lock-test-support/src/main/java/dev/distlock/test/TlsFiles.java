package dev.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away certificate authority with a server certificate for 127.0.0.1 and a client certificate, made in a temp
 * directory with the {@code openssl} command (EC P-256 keys, valid for two days) and deleted when the JVM exits. Each
 * {@link #create()} makes a new authority, so the files of one instance do not verify against another's: that is a
 * wrong CA. Give it to {@link RedisNodeConfig#tls(TlsFiles, boolean)} for a TLS-only node.
 *
 * <p>The private keys exist only in the temp directory; nothing here is meant to be committed.
 */
public final class TlsFiles {

    /** Why TLS tests skip when {@link #isAvailable()} is false. */
    public static final String SKIP_MESSAGE = "install openssl (apt-get install openssl) to run the TLS tests";

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

    private static Boolean available;

    private final Path dir;
    private SSLContext clientContext;

    private TlsFiles(Path dir) {
        this.dir = dir;
    }

    /** Whether the {@code openssl} command runs; TLS tests skip with {@link #SKIP_MESSAGE} when it does not. */
    public static synchronized boolean isAvailable() {
        if (available == null) {
            try {
                Process process = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
                process.getInputStream().readAllBytes();
                available = process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS) && process.exitValue() == 0;
            } catch (IOException e) {
                available = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                available = false;
            }
        }
        return available;
    }

    /** Makes a new authority and a server and a client certificate signed by it. */
    public static TlsFiles create() {
        TlsFiles files = new TlsFiles(Reaper.createTempDirectory());
        files.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=distlock test CA");
        files.signed("server", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
        files.signed("client", "extendedKeyUsage=clientAuth\n");
        return files;
    }

    /** The authority's certificate (PEM): what a client or server trusts. */
    public Path caCertificate() {
        return dir.resolve("ca.crt");
    }

    /**
     * The server's certificate (PEM), for 127.0.0.1 and localhost; also good for client authentication, since a node
     * shows it to another node on the cluster bus and the replication link.
     */
    public Path serverCertificate() {
        return dir.resolve("server.crt");
    }

    /** The server's private key (PEM, PKCS#8). */
    public Path serverKey() {
        return dir.resolve("server.key");
    }

    /** The client's certificate (PEM), for mutual TLS. */
    public Path clientCertificate() {
        return dir.resolve("client.crt");
    }

    /** The client's private key (PEM, PKCS#8). */
    public Path clientKey() {
        return dir.resolve("client.key");
    }

    /** A client context that trusts this authority and presents the client certificate when asked. */
    public synchronized SSLContext clientContext() {
        if (clientContext == null) {
            clientContext = newClientContext();
        }
        return clientContext;
    }

    private SSLContext newClientContext() {
        try {
            CertificateFactory certificates = CertificateFactory.getInstance("X.509");
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            trust.setCertificateEntry("ca", read(certificates, caCertificate()));
            KeyStore keys = KeyStore.getInstance(KeyStore.getDefaultType());
            keys.load(null, null);
            keys.setKeyEntry("client", privateKey(clientKey()), new char[0],
                    new Certificate[] {read(certificates, clientCertificate())});
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(
                    TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, new char[0]);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a TLS client context from " + dir, e);
        }
    }

    private void signed(String name, String extensions) {
        write(name + ".ext", extensions);
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                name + ".key", "-out", name + ".csr", "-subj", "/CN=distlock test " + name);
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".crt", "-days", "2", "-extfile", name + ".ext");
    }

    private void openssl(String... arguments) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within " + COMMAND_TIMEOUT);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(command + " failed with " + process.exitValue() + ":\n" + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command + "; " + SKIP_MESSAGE, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }

    private void write(String name, String text) {
        try {
            Files.writeString(dir.resolve(name), text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + name + " in " + dir, e);
        }
    }

    private static Certificate read(CertificateFactory certificates, Path file) throws IOException,
            GeneralSecurityException {
        try (var in = Files.newInputStream(file)) {
            return certificates.generateCertificate(in);
        }
    }

    private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file);
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        byte[] encoded = Base64.getDecoder().decode(base64);
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(encoded));
    }

    @Override
    public String toString() {
        return "TlsFiles[" + dir + "]";
    }
}
