package dev.distlock.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.MultiLockHandle;

/** The held locks of a key set: every call fans out to the members (see {@link MultiLockHandle}). */
final class LockSet extends AbstractLockHandle implements MultiLockHandle {

    private final List<LockHandle> members;

    private final String key;

    private final String name;

    private final AtomicReference<@Nullable LeaseLostException> lost = new AtomicReference<>();

    /** The set of the members, named {@code name} or, when null, after the members' names. */
    LockSet(List<LockHandle> members, @Nullable String name) {
        this.members = Collections.unmodifiableList(new ArrayList<>(members));
        List<String> keys = new ArrayList<>(members.size());
        Set<String> names = new LinkedHashSet<>();
        for (LockHandle member : members) {
            keys.add(member.key());
            names.add(member.name());
        }
        this.key = keys.toString();
        this.name = (name != null) ? name : String.join("+", names);
        for (LockHandle member : this.members) {
            member.onLeaseLost(reason -> memberLost(member, reason));
        }
    }

    @Override
    public List<LockHandle> members() {
        return this.members;
    }

    @Override
    public LockHandle member(String key) {
        for (LockHandle member : this.members) {
            if (member.key().equals(key)) {
                return member;
            }
        }
        throw new IllegalArgumentException("key " + KeyText.quote(key) + " is not in the lock set "
                + KeyText.escape(this.key));
    }

    @Override
    public String key() {
        return this.key;
    }

    @Override
    public String name() {
        return this.name;
    }

    @Override
    public String ownerToken() {
        return this.members.get(0).ownerToken();
    }

    @Override
    public long fencingToken() {
        long highest = Long.MIN_VALUE;
        for (LockHandle member : this.members) {
            highest = Math.max(highest, member.fencingToken());
        }
        return highest;
    }

    @Override
    public Instant leaseDeadline() {
        Instant earliest = Instant.MAX;
        for (LockHandle member : this.members) {
            Instant deadline = member.leaseDeadline();
            if (deadline.isBefore(earliest)) {
                earliest = deadline;
            }
        }
        return earliest;
    }

    @Override
    public boolean isHeld() {
        for (LockHandle member : this.members) {
            if (!member.isHeld()) {
                return false;
            }
        }
        return true;
    }

    @Override
    protected @Nullable LeaseLostException lostReason() {
        return this.lost.get();
    }

    private void memberLost(LockHandle member, LeaseLostException memberReason) {
        LeaseLostException reason = new LeaseLostException(this.key,
                "Lock set " + this.key + " lost the lease of its member " + KeyText.quote(member.key()) + ": "
                        + memberReason.getMessage(),
                memberReason);
        if (!this.lost.compareAndSet(null, reason)) {
            return; // the set is reported lost once, for its first lost member
        }
        leaseLost(reason);
    }

    @Override
    protected void releaseNow(Duration keepHeld) {
        releaseAll(this.members, member -> member.releaseAfter(keepHeld));
    }

    @Override
    protected CompletableFuture<Void> releaseNowAsync() {
        return releaseAllAsync(this.members);
    }

    /**
     * Releases every handle without blocking, all at once; completes when every release is done, exceptionally with
     * the first failure in reverse acquisition order, the later ones suppressed.
     */
    static CompletableFuture<Void> releaseAllAsync(List<LockHandle> handles) {
        List<CompletableFuture<Void>> releases = new ArrayList<>(handles.size());
        for (int i = handles.size() - 1; i >= 0; i--) {
            releases.add(handles.get(i).releaseAsync());
        }
        return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).handle((ignored, any) -> {
            RuntimeException failure = null;
            for (CompletableFuture<Void> release : releases) {
                Throwable cause = release.handle((value, ex) -> ex).join();
                if (cause == null) {
                    continue;
                }
                cause = Futures.unwrap(cause);
                RuntimeException runtime = (cause instanceof RuntimeException ex) ? ex : new CompletionException(cause);
                if (failure == null) {
                    failure = runtime;
                }
                else {
                    failure.addSuppressed(runtime);
                }
            }
            if (failure != null) {
                throw failure;
            }
            return null;
        });
    }

    /**
     * Releases every handle in reverse order, going on after a failure.
     *
     * @throws RuntimeException the first failure, with the later ones suppressed
     */
    static void releaseAll(List<LockHandle> handles, Consumer<LockHandle> release) {
        RuntimeException failure = null;
        for (int i = handles.size() - 1; i >= 0; i--) {
            try {
                release.accept(handles.get(i));
            }
            catch (RuntimeException ex) {
                if (failure == null) {
                    failure = ex;
                }
                else {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "MultiLockHandle[keys=" + this.key + ", held=" + isHeld() + "]";
    }
}
