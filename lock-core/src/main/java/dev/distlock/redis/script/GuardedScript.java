package dev.distlock.redis.script;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A lock script as {@link ScriptLayout} read it, with the ACL guard, and its variant without the guard (null when the
 * script has none); {@link AclGuard#select} picks the one a service runs. It may have copies with some arguments
 * written into the text ({@link ScriptCopies}), which a call is sent as when one fits.
 */
final class GuardedScript<T> extends DefaultRedisScript<T> {

    private final @Nullable RedisScript<T> unguarded;

    private final @Nullable ScriptCopies<T> copies;

    GuardedScript(String text, Class<T> resultType, @Nullable RedisScript<T> unguarded,
            @Nullable ScriptCopies<T> copies) {
        super(text, resultType);
        this.unguarded = unguarded;
        this.copies = copies;
    }

    /** The script with {@code acl-unchecked.lua} in place of {@code acl-guard.lua}, or null. */
    @Nullable RedisScript<T> unguarded() {
        return this.unguarded;
    }

    /** The copy to send a call with these arguments (ARGV order) as, or null to send this script with all of them. */
    ScriptCopies.@Nullable Copy<T> copyFor(Object[] args) {
        return (this.copies != null) ? this.copies.copyFor(args) : null;
    }

    /** The copies made so far, or null when the script has none. */
    @Nullable ScriptCopies<T> copies() {
        return this.copies;
    }
}
