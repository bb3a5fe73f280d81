package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.FENCING_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.KEEP_HELD_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.LAST_OF_RUN;
import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.NEW_HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.NEW_OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_ONLY_TO_WAITERS;
import static dev.distlock.redis.script.ScriptArgument.REENTRY;
import static dev.distlock.redis.script.ScriptArgument.RESTART_GRACE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.WAITING;
import static dev.distlock.redis.script.ScriptArgument.WATCHDOG;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The script calls the lock types build alike: every grant's shared arguments and restart grace, every release's
 * shared arguments, and the plain lock hash's acquire, release, hand-off and renewal. Each call goes to the service's
 * runner.
 */
final class LockCalls {

    private LockCalls() {
    }

    /** A call of an integer-answering script, with its arguments in ARGV order. */
    static ScriptCall call(LockScripts scripts, ScriptLayout<Long> layout, List<String> keys, Object[] args) {
        return new ScriptCall(scripts.runner(), layout.script(), keys, args);
    }

    /** The arguments every grant script shares ({@link Scripts#GRANT_ARGUMENTS}) but the restart grace. */
    static ScriptLayout<Long>.Arguments grantArguments(ScriptLayout<Long> layout, String ownerToken,
            LockType.Grant grant) {
        return layout.newArguments()
            .set(OWNER_TOKEN, ownerToken)
            .set(HOLD_ID, grant.holdId())
            .setMillis(LEASE_MILLIS, grant.leaseNanos())
            .set(WATCHDOG, grant.watchdog())
            .set(REENTRY, grant.reentry());
    }

    /**
     * A call of a grant script with the restart grace's marker key appended to {@code keys} and the grace set as
     * {@link ScriptArgument#RESTART_GRACE_MILLIS}; a reply of {@link RestartGrace#refused} or below means the grace
     * refused a new grant.
     */
    static ScriptCall grant(LockScripts scripts, ScriptLayout<Long> layout, List<String> keys,
            ScriptLayout<Long>.Arguments args) {
        RestartGrace grace = scripts.restartGrace();
        List<String> allKeys = new ArrayList<>(keys.size() + 1);
        allKeys.addAll(keys);
        allKeys.add(grace.marker(keys.get(0)));
        args.setMillis(RESTART_GRACE_MILLIS, grace.grace());
        return call(scripts, layout, allKeys, args.toArray());
    }

    /**
     * renew.lua over holds whose locks are hashes with the plain lock's layout, each at
     * {@code <prefix>:{key}:<suffix>}.
     */
    static RenewalScripts.Call renewPlainHashes(LockScripts scripts, LockKeys names,
            List<? extends LockTarget> holds, String suffix, long leaseNanos) {
        List<String> hashes = new ArrayList<>(holds.size());
        List<String> tokens = new ArrayList<>(holds.size());
        for (LockTarget hold : holds) {
            hashes.add(names.name(hold, suffix));
            tokens.add(hold.ownerToken());
        }
        return scripts.renewals().batch(Scripts.RENEW, hashes, tokens, leaseNanos);
    }

    /** The arguments every release script shares ({@link Scripts#RELEASE_ARGUMENTS}). */
    static ScriptLayout<Long>.Arguments releaseArguments(ScriptLayout<Long> layout, String ownerToken,
            LockType.Release release, Duration retention, String channel, String publishCommand) {
        return layout.newArguments()
            .set(OWNER_TOKEN, ownerToken)
            .set(HOLD_ID, release.holdId())
            .set(FENCING_TOKEN, release.fencingToken())
            .set(WATCHDOG, release.watchdog())
            .setMillis(KEEP_HELD_MILLIS, release.keepHeldNanos())
            .setMillis(TOKEN_RETENTION_MILLIS, retention)
            .set(CHANNEL, channel)
            .set(PUBLISH_COMMAND, publishCommand);
    }

    /**
     * acquire.lua on the plain lock hash: the fencing token ({@code > 0}) when granted, {@code 0} when a re-entry
     * found the owner's hold gone, otherwise {@code -1 - holder's remaining lease in ms}.
     */
    static ScriptCall acquire(LockScripts scripts, String lockHash, String ownerToken, LockType.Grant grant) {
        return grant(scripts, Scripts.ACQUIRE, List.of(lockHash),
                grantArguments(Scripts.ACQUIRE, ownerToken, grant).set(WAITING, grant.waiting()));
    }

    /**
     * release.lua on a plain lock hash, publishing a freed lock's message with {@code publishCommand} (with {@code
     * publishOnlyToWaiters}, only when a waiting caller was refused since the last message); {@code freedMark}, the
     * key a freeing release leaves its acquisition's mark in (see end-hold.lua). Answers one of
     * {@link ScriptReplies#FREED}, {@link ScriptReplies#STILL_HELD}, {@link ScriptReplies#ALREADY_RELEASED}, ...
     */
    static ScriptCall release(LockScripts scripts, String lockHash, String freedMark, String ownerToken,
            LockType.Release release, String channel, String message, Duration retention, String publishCommand,
            boolean publishOnlyToWaiters) {
        return call(scripts, Scripts.RELEASE, List.of(lockHash, freedMark),
                releaseArguments(Scripts.RELEASE, ownerToken, release, retention, channel, publishCommand)
                    .set(MESSAGE, message)
                    .set(PUBLISH_ONLY_TO_WAITERS, publishOnlyToWaiters)
                    .toArray());
    }

    /**
     * handoff.lua: the releasing owner's last hold ends and the new owner's grant starts in one call. Answers the new
     * fencing token ({@code > 0}), or one of {@link ScriptReplies#ALREADY_RELEASED}, {@link
     * ScriptReplies#HELD_BY_ANOTHER}, {@link ScriptReplies#NOT_HELD}, {@link ScriptReplies#OTHER_HOLDS_REMAIN},
     * {@link ScriptReplies#OTHERS_WAIT}, having changed nothing.
     */
    static ScriptCall handOff(LockScripts scripts, String lockHash, String freedMark, String ownerToken,
            LockType.Release release, String newOwnerToken, LockType.Grant grant, boolean lastOfRun,
            Duration retention) {
        return call(scripts, Scripts.HAND_OFF, List.of(lockHash, freedMark), Scripts.HAND_OFF.newArguments()
            .set(OWNER_TOKEN, ownerToken)
            .set(HOLD_ID, release.holdId())
            .set(FENCING_TOKEN, release.fencingToken())
            .set(NEW_OWNER_TOKEN, newOwnerToken)
            .set(NEW_HOLD_ID, grant.holdId())
            .setMillis(LEASE_MILLIS, grant.leaseNanos())
            .set(WATCHDOG, grant.watchdog())
            .set(LAST_OF_RUN, lastOfRun)
            .setMillis(TOKEN_RETENTION_MILLIS, retention)
            .toArray());
    }
}
