package io.latchkey.cli;

import java.util.List;

/** Renders rows of cells as left-aligned, space-separated columns (first row is the header). Stateless. */
final class Tables {
    private Tables() {}

    static String render(List<String[]> rows) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] row : rows) {
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], row[c].codePointCount(0, row[c].length()));
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                line.append(row[c]);
                if (c < columns - 1) {
                    line.append(" ".repeat(width[c] - row[c].codePointCount(0, row[c].length()) + 2));
                }
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }
}
