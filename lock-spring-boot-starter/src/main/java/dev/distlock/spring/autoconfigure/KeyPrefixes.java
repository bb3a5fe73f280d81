package dev.distlock.spring.autoconfigure;

import org.springframework.validation.Errors;

/** Checks the key prefix of an integration: it becomes part of every lock key, which refuses braces. */
final class KeyPrefixes {

    private KeyPrefixes() {
    }

    static void check(String prefix, String field, Errors errors) {
        if (prefix == null) {
            errors.rejectValue(field, "null", "must not be null");
            return;
        }
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c == '{' || c == '}' || Character.isISOControl(c)) {
                errors.rejectValue(field, "invalid", "must have no braces or control characters, but was '"
                        + prefix.replaceAll("\\p{Cntrl}", "?") + "'");
                return;
            }
        }
    }
}
