package dev.distlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.distlock.bench.SemaphoreCapture.Call;
import dev.distlock.bench.SemaphoreCapture.Captured;

/**
 * One set of semaphore scripts as {@link SemaphoreLayoutCost} replays it: the acquire's and the release's text, and
 * their keys and arguments as templates whose slots a caller fills per cycle (the holder token or permit id, the hold
 * id, the acquire's reply, a time), the rest as sent by the real client.
 */
final class SemaphoreScriptSet {

    /** What a slot holds per cycle. */
    enum Kind {
        /** the captured value (the semaphore's name put in) */
        CONST,
        /** the captured value with the per-cycle token in place of the captured one */
        TOKEN,
        /** the per-cycle hold id */
        HOLD,
        /** the acquire's reply (the fencing token) */
        REPLY,
        /** the client's clock in ms plus the captured offset */
        TIME
    }

    /** One key or argument: {@code before + token + after} for TOKEN, {@code before} for CONST. */
    record Slot(Kind kind, String before, String after, long offset) {

        static Slot constant(String value) {
            return new Slot(Kind.CONST, value, "", 0);
        }

        Slot named(String semaphore) {
            return new Slot(this.kind, this.before.replace(SemaphoreCapture.MARKER, semaphore),
                    this.after.replace(SemaphoreCapture.MARKER, semaphore), this.offset);
        }

        String fill(String token, String hold, String reply) {
            return switch (this.kind) {
                case CONST -> this.before;
                case TOKEN -> this.before + token + this.after;
                case HOLD -> hold;
                case REPLY -> reply;
                case TIME -> Long.toString(System.currentTimeMillis() + this.offset);
            };
        }
    }

    /** A call's keys and arguments, for one semaphore. */
    record Template(Slot[] keys, Slot[] args) {

        Template named(String semaphore) {
            return new Template(named(this.keys, semaphore), named(this.args, semaphore));
        }

        private static Slot[] named(Slot[] slots, String semaphore) {
            Slot[] out = new Slot[slots.length];
            for (int i = 0; i < slots.length; i++) {
                out[i] = slots[i].named(semaphore);
            }
            return out;
        }

        static String[] fill(Slot[] slots, String token, String hold, String reply) {
            String[] out = new String[slots.length];
            for (int i = 0; i < slots.length; i++) {
                out[i] = slots[i].fill(token, hold, reply);
            }
            return out;
        }
    }

    final String label;

    final String acquireText;

    final String releaseText;

    final Template acquire;

    final Template release;

    /** Setup scripts run once per semaphore on a fresh server (Redisson's trySetPermits), constant slots only. */
    final List<Call> setup;

    /** A key set to '1' on a fresh server (distlock's restart grace marker, as its acquire sets it), or null. */
    final String graceKey;

    /** Whether a grant answers the token sent (Redisson's permit id) rather than a positive fencing token. */
    final boolean answersToken;

    /** The length of the captured token: each cycle's token is as long. */
    final int tokenLength;

    /** Whether the captured token is lower-case hex (distlock's) rather than raw bytes (Redisson's permit id). */
    final boolean hexToken;

    private SemaphoreScriptSet(String label, String acquireText, String releaseText, Template acquire,
            Template release, List<Call> setup, String graceKey, boolean answersToken, int tokenLength,
            boolean hexToken) {
        this.label = label;
        this.acquireText = acquireText;
        this.releaseText = releaseText;
        this.acquire = acquire;
        this.release = release;
        this.setup = setup;
        this.graceKey = graceKey;
        this.answersToken = answersToken;
        this.tokenLength = tokenLength;
        this.hexToken = hexToken;
    }

    /** Whether an acquire's reply is a grant. */
    boolean granted(Object reply) {
        if (this.answersToken) {
            return reply instanceof String text && !text.startsWith(":");
        }
        return reply instanceof Long fence && fence > 0;
    }

    /** (a) distlock today: its sem-acquire.lua and sem-release.lua as its client sent them, slots by header name. */
    static SemaphoreScriptSet distlock(Captured captured) {
        Call acquire = captured.acquire();
        Call release = captured.release();
        Map<String, String> acq = named(acquire);
        String token = acq.get("OWNER_TOKEN");
        Template acquireTemplate = new Template(tokenSlots(acquire.keys(), token),
                slotsByName(acquire, token, List.of()));
        Template releaseTemplate = new Template(tokenSlots(release.keys(), token),
                slotsByName(release, token, List.of("FENCING_TOKEN")));
        return new SemaphoreScriptSet("distlock today (layout 1)", acquire.text(), release.text(), acquireTemplate,
                releaseTemplate, List.of(), acquire.keys().get(acquire.keys().size() - 1), false, token.length(),
                true);
    }

    /**
     * (b) the layout-2 sketch (docs/benchmarks.md, "A layout 2, priced": one hash per semaphore with a {@code next}
     * field, lean calls), its keys and arguments made from what distlock's own client sent in (a): the same prefix,
     * semaphore, lease, retention, limit, channel and message.
     */
    static SemaphoreScriptSet layout2(Captured captured) {
        Call acquire = captured.acquire();
        Call release = captured.release();
        Map<String, String> acq = named(acquire);
        Map<String, String> rel = named(release);
        String token = acq.get("OWNER_TOKEN");
        String leases = acquire.keys().get(0);
        if (!leases.endsWith(":sem:leases")) {
            throw new IllegalStateException("distlock's first semaphore key is not ...:sem:leases: " + leases);
        }
        String semaphore = leases.substring(0, leases.length() - ":leases".length());
        String grace = acquire.keys().get(acquire.keys().size() - 1);
        Template acquireTemplate = new Template(
                new Slot[] { Slot.constant(semaphore), Slot.constant(grace) },
                new Slot[] { new Slot(Kind.TOKEN, "", "", 0), new Slot(Kind.HOLD, "", "", 0),
                        Slot.constant(acq.get("LEASE_MILLIS")), Slot.constant(acq.get("WATCHDOG")),
                        Slot.constant(acq.get("TOKEN_RETENTION_MILLIS")), Slot.constant(acq.get("PERMIT_LIMIT")),
                        Slot.constant(acq.get("PERMITS")), Slot.constant(acq.get("WAITING")),
                        Slot.constant(acq.get("RESTART_GRACE_MILLIS")) });
        Template releaseTemplate = new Template(
                new Slot[] { Slot.constant(semaphore), new Slot(Kind.TOKEN, semaphore + ":released:", "", 0) },
                new Slot[] { new Slot(Kind.TOKEN, "", "", 0), new Slot(Kind.HOLD, "", "", 0),
                        Slot.constant(rel.get("TOKEN_RETENTION_MILLIS")), Slot.constant(rel.get("CHANNEL")),
                        Slot.constant(rel.get("PUBLISH_COMMAND")), Slot.constant(rel.get("MESSAGE")) });
        return new SemaphoreScriptSet("layout-2 sketch", resource("sem2-acquire.lua"), resource("sem2-release.lua"),
                acquireTemplate, releaseTemplate, List.of(), grace, false, token.length(), true);
    }

    /**
     * (c) Redisson's RPermitExpirableSemaphore as its client sent them: the permit id (the acquire's argument that
     * comes back in the release) is the per-cycle token; an argument that reads as the epoch in ms (the lease's end,
     * the time now) is the client's clock plus the captured offset.
     */
    static SemaphoreScriptSet redisson(Captured captured) {
        Call acquire = captured.acquire();
        Call release = captured.release();
        String permitId = null;
        for (String arg : acquire.args()) {
            if (arg.length() >= 8 && !arg.matches("\\d+|[A-Z_]+") && release.args().contains(arg)) {
                permitId = arg;
            }
        }
        if (permitId == null) {
            throw new IllegalStateException("no permit id found in Redisson's acquire " + acquire.args()
                    + " and release " + release.args());
        }
        Template acquireTemplate = new Template(tokenSlots(acquire.keys(), permitId),
                timedSlots(acquire, permitId));
        Template releaseTemplate = new Template(tokenSlots(release.keys(), permitId),
                timedSlots(release, permitId));
        return new SemaphoreScriptSet("Redisson RPermitExpirableSemaphore", acquire.text(), release.text(),
                acquireTemplate, releaseTemplate, captured.setup(), null, true, permitId.length(),
                permitId.matches("[0-9a-f]+"));
    }

    private static Map<String, String> named(Call call) {
        List<String> names = SemaphoreCapture.declaredArguments(call.text());
        if (names.size() != call.args().size()) {
            throw new IllegalStateException("the script declares " + names + " but was sent " + call.args());
        }
        Map<String, String> named = new java.util.LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            named.put(names.get(i), call.args().get(i));
        }
        return named;
    }

    private static Slot[] tokenSlots(List<String> values, String token) {
        Slot[] slots = new Slot[values.size()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = tokenSlot(values.get(i), token);
        }
        return slots;
    }

    private static Slot tokenSlot(String value, String token) {
        int at = value.indexOf(token);
        return (at < 0) ? Slot.constant(value)
                : new Slot(Kind.TOKEN, value.substring(0, at), value.substring(at + token.length()), 0);
    }

    private static Slot[] slotsByName(Call call, String token, List<String> replies) {
        List<String> names = SemaphoreCapture.declaredArguments(call.text());
        Slot[] slots = new Slot[names.size()];
        for (int i = 0; i < slots.length; i++) {
            String name = names.get(i);
            slots[i] = name.equals("HOLD_ID") ? new Slot(Kind.HOLD, "", "", 0)
                    : replies.contains(name) ? new Slot(Kind.REPLY, "", "", 0) : tokenSlot(call.args().get(i), token);
        }
        return slots;
    }

    private static Slot[] timedSlots(Call call, String token) {
        Slot[] slots = new Slot[call.args().size()];
        for (int i = 0; i < slots.length; i++) {
            String value = call.args().get(i);
            Long millis = value.matches("\\d{13}") ? Long.parseLong(value) : null;
            slots[i] = (millis != null && Math.abs(millis - call.atMillis()) < 86_400_000L)
                    ? new Slot(Kind.TIME, "", "", millis - call.atMillis()) : tokenSlot(value, token);
        }
        return slots;
    }

    private static String resource(String name) {
        try (InputStream in = SemaphoreScriptSet.class.getResourceAsStream("layouts/" + name)) {
            if (in == null) {
                throw new IOException("not found");
            }
            return new String(in.readAllBytes(), SemaphoreCapture.BYTES);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read " + name, ex);
        }
    }

    /** What the report says of the set's calls. */
    String describe() {
        return String.format(Locale.ROOT, "%s: acquire %d keys, %d arguments; release %d keys, %d arguments%s",
                this.label, this.acquire.keys().length, this.acquire.args().length, this.release.keys().length,
                this.release.args().length, this.setup.isEmpty() ? "" : "; " + this.setup.size() + " setup call(s)");
    }

    /** A printable form of a captured value: bytes outside printable ASCII as \\xhh. */
    static String printable(String value) {
        StringBuilder out = new StringBuilder();
        for (char c : value.toCharArray()) {
            out.append((c >= 32 && c < 127) ? String.valueOf(c) : String.format(Locale.ROOT, "\\x%02x", (int) c));
        }
        return out.toString();
    }

    /** Every slot, for the log: what each key and argument is per cycle. */
    String slots() {
        List<String> lines = new ArrayList<>();
        lines.add(this.label + " acquire keys " + show(this.acquire.keys()) + " args " + show(this.acquire.args()));
        lines.add(this.label + " release keys " + show(this.release.keys()) + " args " + show(this.release.args()));
        return String.join("\n", lines);
    }

    private static String show(Slot[] slots) {
        List<String> out = new ArrayList<>();
        for (Slot slot : slots) {
            out.add(switch (slot.kind()) {
                case CONST -> printable(slot.before());
                case TOKEN -> printable(slot.before()) + "<token>" + printable(slot.after());
                case HOLD -> "<hold>";
                case REPLY -> "<reply>";
                case TIME -> "<now" + (slot.offset() >= 0 ? "+" : "") + slot.offset() + ">";
            });
        }
        return out.toString();
    }
}
