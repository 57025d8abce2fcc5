package dev.kgpu.discovery.labels;

/**
 * GFD's label-value sanitiser: drops every character outside {@code [A-Za-z0-9-_. ]}, then joins the
 * space-separated words with {@code -}. {@code NVIDIA GeForce RTX 3060} becomes
 * {@code NVIDIA-GeForce-RTX-3060}; {@code NVIDIA H100 80GB HBM3} becomes {@code NVIDIA-H100-80GB-HBM3}.
 */
public final class Sanitiser {

    private Sanitiser() {
    }

    public static String sanitise(String input) {
        StringBuilder out = new StringBuilder(input.length());
        boolean pendingSeparator = false;
        for (int i = 0; i < input.length(); i++) {
            char c = input.charAt(i);
            if (c == ' ') {
                pendingSeparator = !out.isEmpty();
            } else if (isKept(c)) {
                if (pendingSeparator) {
                    out.append('-');
                    pendingSeparator = false;
                }
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isKept(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                || c == '-' || c == '_' || c == '.';
    }
}
