package dev.distlock.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** One node's {@code CLUSTER NODES} reply, parsed: who is who, and which master serves which slots. */
final class ClusterView {

    /** One line: {@code <id> <ip:port@cport> <flags> <master-id|-> <ping> <pong> <epoch> <link> <slot>...}. */
    record Entry(String id, int port, Set<String> flags, String masterId, String link, List<int[]> slots) {

        boolean isMaster() {
            return flags.contains("master");
        }

        boolean isFailed() {
            return flags.contains("fail") || flags.contains("fail?");
        }

        boolean serves(int slot) {
            for (int[] range : slots) {
                if (range[0] <= slot && slot <= range[1]) {
                    return true;
                }
            }
            return false;
        }
    }

    private final List<Entry> entries;

    private ClusterView(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    static ClusterView parse(String clusterNodes) {
        List<Entry> entries = new ArrayList<>();
        for (String line : clusterNodes.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 8) {
                continue;
            }
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < fields.length; i++) {
                if (fields[i].startsWith("[")) {
                    continue; // a slot being imported or migrated
                }
                int dash = fields[i].indexOf('-');
                slots.add(dash < 0 ? new int[] {Integer.parseInt(fields[i]), Integer.parseInt(fields[i])}
                        : new int[] {Integer.parseInt(fields[i].substring(0, dash)),
                                Integer.parseInt(fields[i].substring(dash + 1))});
            }
            entries.add(new Entry(fields[0], Replies.port(fields[1]), Set.of(fields[2].split(",")), fields[3],
                    fields[7], slots));
        }
        return new ClusterView(entries);
    }

    List<Entry> entries() {
        return entries;
    }

    /** The entry with this node id, or null. */
    Entry node(String id) {
        for (Entry entry : entries) {
            if (entry.id().equals(id)) {
                return entry;
            }
        }
        return null;
    }

    /** The master this view says serves {@code slot}, or null if none does. */
    Entry masterOf(int slot) {
        for (Entry entry : entries) {
            if (entry.isMaster() && entry.serves(slot)) {
                return entry;
            }
        }
        return null;
    }
}
