package io.latchkey.cli;

import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * The valid word nearest to a mistyped command or option, so that every usage error can say what to type
 * ({@code latchkey exce} → "did you mean exec?"). Picocli's own suggestions (cosine similarity of letter
 * pairs) come first when it has any; otherwise, and to pick among them, the smallest edit distance
 * (Damerau–Levenshtein: a swapped pair of letters, the commonest typo, counts once). Stateless.
 */
final class Suggestions {
    private Suggestions() {}

    /**
     * The candidate nearest to {@code typed}: the closest of picocli's suggestions if it made any that are
     * valid, else the closest of all candidates. Never empty while there is a candidate.
     */
    static String nearest(String typed, List<String> picocliSuggestions, Collection<String> candidates) {
        List<String> valid =
                picocliSuggestions.stream().filter(candidates::contains).toList();
        Collection<String> pool = valid.isEmpty() ? candidates : valid;
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : pool) {
            int d = distance(typed.toLowerCase(Locale.ROOT), c.toLowerCase(Locale.ROOT));
            // ties go to the longer (more explicit) spelling: --name rather than -n
            if (d < bestDistance || (d == bestDistance && best != null && c.length() > best.length())) {
                best = c;
                bestDistance = d;
            }
        }
        return best == null ? "--help" : best;
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps cost 1. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
