package dev.distlock.redis.script;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A lock script as {@link ScriptLayout} read it, with the ACL guard, and its variant without the guard (null when the
 * script has none); {@link AclGuard#select} picks the one a service runs.
 */
final class GuardedScript<T> extends DefaultRedisScript<T> {

    private final @Nullable RedisScript<T> unguarded;

    GuardedScript(String text, Class<T> resultType, @Nullable RedisScript<T> unguarded) {
        super(text, resultType);
        this.unguarded = unguarded;
    }

    /** The script with {@code acl-unchecked.lua} in place of {@code acl-guard.lua}, or null. */
    @Nullable RedisScript<T> unguarded() {
        return this.unguarded;
    }
}
