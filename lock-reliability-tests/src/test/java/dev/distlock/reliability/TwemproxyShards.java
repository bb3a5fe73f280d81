package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.distlock.test.RedisNode;
import dev.distlock.test.TwemproxyTopology;

/** Keys that land on each shard behind a Twemproxy, for tests that must cover every shard. */
final class TwemproxyShards {

    private TwemproxyShards() {
    }

    /**
     * One key per shard, in shard order: candidates {@code prefix + 0, 1, ...} (at most 1,000), each placed by
     * {@code shardOf}, which takes the candidate's lock or permit and answers the shard that holds its Redis key.
     */
    static List<String> keysOnEveryShard(TwemproxyTopology proxy, String prefix, Function<String, RedisNode> shardOf) {
        Map<RedisNode, String> byShard = new HashMap<>();
        for (int i = 0; byShard.size() < proxy.shards().size(); i++) {
            assertThat(i).as("candidates for " + prefix).isLessThan(1000);
            String key = prefix + i;
            byShard.putIfAbsent(shardOf.apply(key), key);
        }
        return proxy.shards().stream().map(byShard::get).toList();
    }
}
