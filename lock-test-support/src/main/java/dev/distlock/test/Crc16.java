package dev.distlock.test;

/**
 * CRC16 as Redis Cluster uses it to map keys to slots: CRC-16/XMODEM (polynomial 0x1021, initial value 0, no
 * reflection, no final XOR); {@code crc16("123456789") == 0x31C3}. See {@link ClusterTopology#slotOf(String)}.
 */
public final class Crc16 {

    private static final int POLYNOMIAL = 0x1021;

    private Crc16() {
    }

    /** The CRC16 of {@code bytes[from..to)}, 0 to 65535. */
    public static int of(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ POLYNOMIAL : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc;
    }

    /** The CRC16 of all of {@code bytes}. */
    public static int of(byte[] bytes) {
        return of(bytes, 0, bytes.length);
    }
}
