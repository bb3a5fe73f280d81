package dev.distlock.sample.wiki;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.springframework.stereotype.Component;

/** A short digest of an edit, for lock keys: referenced from SpEL as {@code @editFingerprint.of(#edit)}. */
@Component("editFingerprint")
public class EditFingerprint {

    public String of(String edit) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(edit.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 12);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is part of every JDK", ex);
        }
    }
}
