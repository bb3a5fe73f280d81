package dev.distlock.test;

import java.util.ArrayList;
import java.util.List;

/** Splits and joins redis.conf lines the way redis does (whitespace, quotes, backslash escapes). */
final class Directives {

    private Directives() {
    }

    static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && quote == '"' && i + 1 < line.length()) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                if (word == null) {
                    word = new StringBuilder();
                }
                if (c == '"' || c == '\'') {
                    quote = c;
                } else {
                    word.append(c);
                }
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unbalanced quotes in directive: " + line);
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }

    static String join(List<String> words) {
        List<String> quoted = new ArrayList<>();
        for (String word : words) {
            boolean plain = !word.isEmpty() && word.chars().noneMatch(c -> Character.isWhitespace(c) || c == '"'
                    || c == '\'' || c == '\\');
            quoted.add(plain ? word : '"' + word.replace("\\", "\\\\").replace("\"", "\\\"") + '"');
        }
        return String.join(" ", quoted);
    }
}
