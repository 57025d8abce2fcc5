package dev.kgpu.agent.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A source check of {@code System.Logger} calls. {@code LOG.log(level, pattern, params...)} formats with
 * {@link MessageFormat}, not {@code String.format}: a {@code %s} in it is printed as is, and a single quote
 * starts a quoted section that swallows the placeholders after it ({@code "'{0}'"} prints {@code {0}}; it must
 * be {@code "''{0}''"}). A call without parameters prints its message as it is, so only calls with parameters
 * are checked.
 *
 * <pre>{@code
 * assertThat(LogPatterns.problems(Path.of("src/main/java"))).isEmpty();
 * }</pre>
 */
public final class LogPatterns {

    /** {@code LOG.log(level, pattern, params...)}, and {@code OncePerCause.occurred(level, cause, pattern, params...)}. */
    private static final Pattern CALL = Pattern.compile("\\bLOG\\.log\\(|\\.occurred\\(");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d+)\\s*(?:,\\s*(\\w+))?");
    private static final Pattern PRINTF = Pattern.compile("%[sdfx]");
    private static final Pattern LITERALS = Pattern.compile("\\s*\"(?:[^\"\\\\]|\\\\.)*\"(\\s*\\+\\s*\"(?:[^\"\\\\]|\\\\.)*\")*\\s*");

    private LogPatterns() {
    }

    /** {@code File.java:line: why} for each log call under {@code sources} whose pattern would not print as meant. */
    public static List<String> problems(Path sources) {
        List<String> problems = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String source = Files.readString(file);
                Matcher call = CALL.matcher(source);
                while (call.find()) {
                    List<String> args = arguments(source, call.end());
                    if (call.group().startsWith(".occurred")) {
                        args = args.isEmpty() ? args : args.subList(1, args.size()); // (cause, pattern, ...) lines up with LOG.log
                    }
                    String where = file.getFileName() + ":" + line(source, call.start());
                    check(args).ifPresent(why -> problems.add(where + ": " + why));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return problems;
    }

    private static java.util.Optional<String> check(List<String> args) {
        if (args.size() < 3 || !LITERALS.matcher(args.get(1)).matches()) {
            return java.util.Optional.empty(); // no parameters (or a supplier, or a computed message): printed as is
        }
        String pattern = unquote(args.get(1));
        if (PRINTF.matcher(pattern).find()) {
            return java.util.Optional.of("'" + pattern + "' has a printf placeholder, which System.Logger prints as is");
        }
        if (!PLACEHOLDER.matcher(pattern).find()) {
            return java.util.Optional.empty(); // a message and a Throwable
        }
        Object[] markers = new Object[10];
        for (int i = 0; i < markers.length; i++) {
            markers[i] = "\u0001" + i + "\u0001";
        }
        Matcher typed = PLACEHOLDER.matcher(pattern);
        while (typed.find()) {
            if (typed.group(2) != null) { // {1,number,#}: a number it can format, found below without grouping
                markers[Integer.parseInt(typed.group(1))] = 7_770_000L + Integer.parseInt(typed.group(1));
            }
        }
        String printed;
        try {
            printed = new MessageFormat(pattern).format(markers);
        } catch (IllegalArgumentException e) {
            return java.util.Optional.of("'" + pattern + "' is not a MessageFormat pattern: " + e.getMessage());
        }
        Matcher placeholder = PLACEHOLDER.matcher(pattern);
        while (placeholder.find()) {
            if (!printed.replaceAll("[,.\u00a0\u202f]", "").contains(markers[Integer.parseInt(placeholder.group(1))].toString())) {
                return java.util.Optional.of("'" + pattern + "' never prints {" + placeholder.group(1)
                        + "}: a single quote hides it (write two: '')");
            }
        }
        return java.util.Optional.empty();
    }

    /** The top-level arguments of the call whose parentheses open just before {@code from}, as source text. */
    private static List<String> arguments(String source, int from) {
        List<String> args = new ArrayList<>();
        int depth = 0;
        int start = from;
        for (int i = from; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == '"' || c == '\'') {
                i = skipLiteral(source, i);
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth == 0) {
                    args.add(source.substring(start, i));
                    return args;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                args.add(source.substring(start, i));
                start = i + 1;
            }
        }
        return args;
    }

    private static int skipLiteral(String source, int open) {
        char quote = source.charAt(open);
        if (quote == '"' && source.startsWith("\"\"\"", open)) {
            int end = source.indexOf("\"\"\"", open + 3);
            return end < 0 ? source.length() : end + 2;
        }
        for (int i = open + 1; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == quote) {
                return i;
            }
        }
        return source.length();
    }

    /** The text of {@code "a" + "b"}, its escapes read. */
    private static String unquote(String literals) {
        StringBuilder text = new StringBuilder();
        Matcher literal = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(literals);
        while (literal.find()) {
            text.append(literal.group(1).translateEscapes());
        }
        return text.toString();
    }

    private static int line(String source, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (source.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
