package dev.kgpu.config;

/**
 * JSON text as Go's {@code encoding/json} writes it, for the documents kgpu must write byte for byte as NVIDIA's
 * agents do (the effective configuration they log, the CDI specs they write).
 *
 * <p>Stateless and thread-safe.
 */
public final class GoJson {

    private GoJson() {
    }

    /**
     * Appends {@code s} as a JSON string with Go's escaping: {@code "} and {@code \}, {@code \n \r \t}, other
     * control characters as {@code \}{@code u00XX}, and, because Go's encoder escapes HTML by default,
     * {@code < > &} and U+2028/U+2029 as {@code \}{@code u003c} and so on.
     */
    public static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '<', '>', '&', '\u2028', '\u2029' -> unicode(out, c);
                default -> {
                    if (c < 0x20) {
                        unicode(out, c);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void unicode(StringBuilder out, char c) {
        out.append("\\u");
        for (int shift = 12; shift >= 0; shift -= 4) {
            out.append(Character.forDigit(c >> shift & 0xf, 16));
        }
    }
}
