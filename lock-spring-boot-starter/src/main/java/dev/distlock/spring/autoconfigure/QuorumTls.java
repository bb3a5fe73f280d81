package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;

/**
 * TLS to the quorum masters as configured: whether every master is reached over TLS (a {@code rediss://} node is in
 * any case), the SSL bundle to use (null: the JVM's default trust store), and the property a TLS failure names.
 * {@code distlock.quorum.ssl.*} wins; when it is unset, Boot's {@code spring.data.redis.ssl.*} applies, so that a
 * service that reaches Redis over TLS does not send its quorum credentials in clear text.
 *
 * @param allMasters whether every master is reached over TLS
 * @param bundle the SSL bundle of the TLS connections, null for the JVM's defaults
 * @param property the property to name when TLS fails
 */
record QuorumTls(boolean allMasters, @Nullable SslBundle bundle, String property) {

    static final String BUNDLE_PROPERTY = QuorumProperties.PREFIX + ".ssl.bundle";

    private static final String BOOT_SSL = "spring.data.redis.ssl";

    /** Resolves the settings; fails naming the property when a bundle is named but not defined. */
    static QuorumTls resolve(QuorumProperties.Ssl ssl, Environment environment, @Nullable SslBundles bundles) {
        Binder binder = Binder.get(environment);
        String bundleName = ssl.getBundle();
        String property = BUNDLE_PROPERTY;
        boolean all;
        if (ssl.getEnabled() != null || bundleName != null) {
            all = !Boolean.FALSE.equals(ssl.getEnabled());
        }
        else {
            bundleName = binder.bind(BOOT_SSL + ".bundle", String.class).orElse(null);
            all = bundleName != null || binder.bind(BOOT_SSL + ".enabled", Boolean.class).orElse(false);
            if (bundleName != null) {
                property = BOOT_SSL + ".bundle (which " + BUNDLE_PROPERTY + " inherits while " + QuorumProperties.PREFIX
                        + ".ssl.* is unset)";
            }
        }
        if (bundleName == null) {
            return new QuorumTls(all, null, property + " (unset: the JVM's default trust store applies)");
        }
        if (bundles == null) {
            throw new IllegalStateException(property + " names the SSL bundle '" + bundleName
                    + "', but the application has no SSL bundles (spring.ssl.bundle.*)");
        }
        try {
            return new QuorumTls(all, bundles.getBundle(bundleName), property);
        }
        catch (RuntimeException ex) {
            throw new IllegalStateException(property + " names the SSL bundle '" + bundleName + "': "
                    + ex.getMessage(), ex);
        }
    }
}
