package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import dev.distlock.redis.quorum.QuorumLockServiceBuilder;

/**
 * Quorum (Redlock) mode under {@code distlock.quorum.*}: setting {@code nodes} turns it on, and the lock service then
 * takes each lock on a majority of these independent Redis masters instead of on {@code spring.data.redis}. Checked
 * when bound: an invalid value stops startup with a message naming the property.
 */
@ConfigurationProperties(QuorumProperties.PREFIX)
public class QuorumProperties implements Validator {

    /** The prefix of the quorum properties. */
    public static final String PREFIX = "distlock.quorum";

    /**
     * Addresses of the independent Redis masters (not replicas of each other): an odd number, at least 3, each
     * host:port, redis://host:port or rediss://host:port (TLS). Setting them turns quorum mode on.
     */
    private List<String> nodes = new ArrayList<>();

    /**
     * How long a lock attempt waits for each master to connect and answer; a slower master counts as down for that
     * attempt. From 1ms to 1 minute, and at most a tenth of distlock.watchdog.lease.
     */
    private Duration nodeTimeout = QuorumLockServiceBuilder.DEFAULT_NODE_TIMEOUT;

    /** Redis user on every master; unset for the default user. */
    private @Nullable String username;

    /** Redis password on every master; unset when they need none. */
    private @Nullable String password;

    private final Ssl ssl = new Ssl();

    public List<String> getNodes() {
        return this.nodes;
    }

    public void setNodes(List<String> nodes) {
        this.nodes = nodes;
    }

    public Duration getNodeTimeout() {
        return this.nodeTimeout;
    }

    public void setNodeTimeout(Duration nodeTimeout) {
        this.nodeTimeout = nodeTimeout;
    }

    public @Nullable String getUsername() {
        return this.username;
    }

    public void setUsername(@Nullable String username) {
        this.username = username;
    }

    public @Nullable String getPassword() {
        return this.password;
    }

    public void setPassword(@Nullable String password) {
        this.password = password;
    }

    public Ssl getSsl() {
        return this.ssl;
    }

    /** The masters' addresses, parsed; call after validation. */
    List<Address> addresses() {
        return this.nodes.stream().map(Address::parse).toList();
    }

    @Override
    public boolean supports(Class<?> type) {
        return QuorumProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        QuorumProperties properties = (QuorumProperties) target;
        List<String> nodes = (properties.nodes != null) ? properties.nodes : List.of();
        if (nodes.size() < 3 || nodes.size() % 2 == 0) {
            reject(errors, "nodes", PREFIX + ".nodes must list an odd number of at least 3 independent Redis "
                    + "masters, but listed " + nodes.size());
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            Address address = Address.parse(nodes.get(i));
            if (address == null) {
                String value = (nodes.get(i) != null && nodes.get(i).contains("@")) ? "a URL with credentials; set "
                        + PREFIX + ".username and " + PREFIX + ".password instead" : "'" + nodes.get(i) + "'";
                reject(errors, "nodes", PREFIX + ".nodes[" + i + "] must be host:port, redis://host:port or "
                        + "rediss://host:port, but was " + value);
            }
            else if (seen.putIfAbsent(address.endpoint(), i) != null) {
                reject(errors, "nodes", PREFIX + ".nodes[" + i + "] repeats " + address.endpoint() + " of " + PREFIX
                        + ".nodes[" + seen.get(address.endpoint()) + "]; the masters must be independent");
            }
        }
    }

    private static void reject(Errors errors, String field, String message) {
        errors.rejectValue(field, "distlock.invalid", message);
    }

    /** TLS to the masters under {@code distlock.quorum.ssl.*}. */
    public static class Ssl {

        /**
         * Whether every master is reached over TLS. Unset: TLS when a bundle is set here, else as Boot's
         * spring.data.redis.ssl (enabled or bundle) says. False: only rediss:// nodes use TLS (with the bundle).
         */
        private @Nullable Boolean enabled;

        /**
         * Name of the SSL bundle (spring.ssl.bundle.*) for every master; setting it turns TLS on. Unset: Boot's
         * spring.data.redis.ssl.bundle, else the JVM's default trust store.
         */
        private @Nullable String bundle;

        public @Nullable Boolean getEnabled() {
            return this.enabled;
        }

        public void setEnabled(@Nullable Boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getBundle() {
            return this.bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }
    }

    /** One master's address, and whether its URL asks for TLS ({@code rediss://}). */
    record Address(String host, int port, boolean tls) {

        /** Parses {@code host:port}, {@code redis://host:port} or {@code rediss://host:port}, or returns null. */
        static @Nullable Address parse(@Nullable String text) {
            if (text == null) {
                return null;
            }
            String trimmed = text.trim();
            boolean tls = trimmed.startsWith("rediss://");
            if (tls || trimmed.startsWith("redis://")) {
                trimmed = trimmed.substring(trimmed.indexOf("//") + 2);
                trimmed = trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
            }
            int colon = trimmed.lastIndexOf(':');
            if (colon <= 0) {
                return null;
            }
            String host = trimmed.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (host.isBlank() || host.chars().anyMatch(c -> Character.isWhitespace(c) || c == '/' || c == '@')) {
                return null;
            }
            try {
                int port = Integer.parseInt(trimmed.substring(colon + 1));
                return (port >= 1 && port <= 65535) ? new Address(host, port, tls) : null;
            }
            catch (NumberFormatException ex) {
                return null;
            }
        }

        /** {@code host:port}, the host in brackets when it is an IPv6 address. */
        String endpoint() {
            return (this.host.indexOf(':') >= 0 ? "[" + this.host + "]" : this.host) + ":" + this.port;
        }

        @Override
        public String toString() {
            return (this.tls ? "rediss://" : "") + endpoint();
        }
    }
}
