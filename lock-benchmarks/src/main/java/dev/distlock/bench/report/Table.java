package dev.distlock.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A markdown table, padded so it also reads as plain text. */
public final class Table {

    private final List<String> header;

    private final List<List<String>> rows = new ArrayList<>();

    public Table(String... header) {
        this.header = List.of(header);
    }

    public Table row(String... cells) {
        if (cells.length != this.header.size()) {
            throw new IllegalArgumentException(
                    "row has " + cells.length + " cells, header has " + this.header.size() + ": " + Arrays.toString(cells));
        }
        this.rows.add(List.of(cells));
        return this;
    }

    public String render() {
        int[] widths = new int[this.header.size()];
        for (List<String> row : allRows()) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], Math.max(3, row.get(i).length()));
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, this.header, widths);
        List<String> rule = new ArrayList<>();
        for (int width : widths) {
            rule.add("-".repeat(width));
        }
        line(out, rule, widths);
        for (List<String> row : this.rows) {
            line(out, row, widths);
        }
        return out.toString();
    }

    private List<List<String>> allRows() {
        List<List<String>> all = new ArrayList<>(this.rows);
        all.add(this.header);
        return all;
    }

    private static void line(StringBuilder out, List<String> cells, int[] widths) {
        out.append('|');
        for (int i = 0; i < widths.length; i++) {
            String cell = cells.get(i);
            out.append(' ').append(cell).append(" ".repeat(widths[i] - cell.length())).append(" |");
        }
        out.append('\n');
    }
}
