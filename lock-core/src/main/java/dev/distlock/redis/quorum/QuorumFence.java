package dev.distlock.redis.quorum;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.redis.quorum.Fanout.Answer;

/**
 * Gives a new quorum holder its fencing token: above the quorum fence of every master that holds its member lock, and
 * raised there (quorum-fence.lua, which first checks the member is still held), so that the next quorum, which shares
 * a master with this one, gets a higher token still. A second round, above the highest fence the first found,
 * follows when a fence was not below the first candidate; by then no fence the holder can reach is above it.
 */
final class QuorumFence {

    private static final int ROUNDS = 2;

    private final QuorumMasters masters;

    QuorumFence(QuorumMasters masters) {
        this.masters = masters;
    }

    /**
     * Picks the token and raises the fences, each master within the node timeout.
     *
     * @param members the granted members; those found no longer held are released and removed
     * @return the token, raised on at least a quorum of the members, or -1 when fewer could be raised
     */
    long raise(String key, List<QuorumMember> members) throws InterruptedException {
        long token = 0;
        for (QuorumMember member : members) {
            token = Math.max(token, member.handle().fencingToken());
        }
        for (int round = 1;; round++) {
            long candidate = token;
            // A raise still running after the node timeout does no harm: it only ever raises a fence.
            List<Answer<Long>> answers = this.masters
                .callMembers(members,
                        member -> member.node().raiseFence(key, member.handle().ownerToken(), candidate))
                .await(this.masters.nodeTimeoutNanos())
                .collect(ignored -> {
                });
            int raised = 0;
            long highestAbove = -1;
            List<QuorumMember> notHeld = new ArrayList<>();
            for (int i = 0; i < answers.size(); i++) {
                Long previous = answers.get(i).value();
                if (previous == null) {
                    continue; // failed or not answered in time
                }
                if (previous == QuorumNode.NOT_HELD) {
                    notHeld.add(members.get(i));
                }
                else if (previous < candidate) {
                    raised++;
                }
                else {
                    highestAbove = Math.max(highestAbove, previous);
                }
            }
            members.removeAll(notHeld);
            this.masters.releaseAll(notHeld);
            if (highestAbove < 0 || round == ROUNDS) {
                return (raised >= this.masters.quorum) ? candidate : -1;
            }
            token = highestAbove + 1;
        }
    }
}
