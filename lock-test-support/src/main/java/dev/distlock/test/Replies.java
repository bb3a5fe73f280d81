package dev.distlock.test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Parses the text {@link RedisNode#call} renders for replies that the topologies read. */
final class Replies {

    private Replies() {
    }

    /** {@code INFO} or {@code CLUSTER INFO} text as a map of its {@code name:value} lines. */
    static Map<String, String> info(String text) {
        Map<String, String> fields = new HashMap<>();
        for (String line : text.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /**
     * A flat array of alternating names and values, such as {@code SENTINEL MASTER}'s reply, as records: a new
     * record starts whenever {@code firstName} comes round again (so {@code SENTINEL REPLICAS}, an array of such
     * arrays that {@code call} renders flattened, splits into one record per replica).
     */
    static List<Map<String, String>> records(String text, String firstName) {
        List<Map<String, String>> records = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return records;
        }
        String[] lines = text.split("\n", -1);
        Map<String, String> current = null;
        for (int i = 0; i + 1 < lines.length; i += 2) {
            if (current == null || lines[i].equals(firstName)) {
                current = new LinkedHashMap<>();
                records.add(current);
            }
            current.put(lines[i], lines[i + 1]);
        }
        return records;
    }

    /** The port of an address such as {@code 127.0.0.1:7000}, {@code 127.0.0.1:7000@17000} or {@code ...,hostname}. */
    static int port(String address) {
        int colon = address.lastIndexOf(':', endOfPort(address) - 1);
        return Integer.parseInt(address.substring(colon + 1, endOfPort(address)));
    }

    private static int endOfPort(String address) {
        int end = address.length();
        for (char terminator : new char[] {'@', ','}) {
            int index = address.indexOf(terminator);
            if (index >= 0 && index < end) {
                end = index;
            }
        }
        return end;
    }
}
