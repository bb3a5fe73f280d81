package dev.distlock.reliability;

/**
 * One critical section as its holder recorded it. Times are {@link System#nanoTime()} readings, which on Linux are
 * CLOCK_MONOTONIC and so comparable across the processes of one machine.
 *
 * @param client who held it
 * @param ownerToken the lock's owner token
 * @param fencingToken the grant's fencing token
 * @param startNanos when the holder entered, after acquiring
 * @param endNanos when the holder left, before releasing
 * @param validAtEnd whether the holder still believed it held the lock when it left
 */
record Section(String client, String ownerToken, long fencingToken, long startNanos, long endNanos,
        boolean validAtEnd) {

    /** One line of a history file: fields separated by spaces. */
    String toLine() {
        return this.client + " " + this.ownerToken + " " + this.fencingToken + " " + this.startNanos + " "
                + this.endNanos + " " + this.validAtEnd;
    }

    static Section fromLine(String line) {
        String[] fields = line.trim().split(" ");
        if (fields.length != 6) {
            throw new IllegalArgumentException("Not a section: '" + line + "'");
        }
        return new Section(fields[0], fields[1], Long.parseLong(fields[2]), Long.parseLong(fields[3]),
                Long.parseLong(fields[4]), Boolean.parseBoolean(fields[5]));
    }
}
