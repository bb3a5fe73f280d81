package dev.distlock.redis.script;

/**
 * A grant script's reply and how many replicas acknowledged it ({@link ScriptCall#runAcknowledgedAsync}).
 *
 * @param reply the script's reply
 * @param acknowledged replicas that acknowledged a grant ({@code reply > 0}); -1 when {@code WAIT} failed or did not
 * answer; 0 for a refusal
 */
public record AcknowledgedReply(long reply, long acknowledged) {
}
