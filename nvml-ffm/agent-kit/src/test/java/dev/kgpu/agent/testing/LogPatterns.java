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
 * A source check of {@code System.Logger} calls, which keeps kgpu's one logging style: a {@link MessageFormat}
 * pattern and its parameters, {@code LOG.log(level, "pattern {0}", params...)}.
 *
 * <ul>
 *   <li>A pattern formats with {@link MessageFormat}, not {@code String.format}: a {@code %s} in it is printed as
 *       is, and a single quote starts a quoted section that swallows the placeholders after it ({@code "'{0}'"}
 *       prints {@code {0}}; it must be {@code "''{0}''"}). A call without parameters prints its message as it is,
 *       so only calls with parameters are checked for this, and a call without parameters must not write
 *       {@code ''} (it would print both quotes).</li>
 *   <li>A message is not built some other way: a supplier ({@code () -> ...}) or a message that formats with
 *       {@code String.format} or {@code formatted}, or joins text with {@code +}, is the other style. With a
 *       {@code Throwable}, which takes no parameters, the message is {@code MessageFormat.format(pattern, ...)}.
 *       A message computed elsewhere ({@code warning.toString()}, {@code verdict.line()}) is printed as is.</li>
 * </ul>
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
        if (args.size() >= 2) {
            java.util.Optional<String> built = builtMessage(args.get(1).strip());
            if (built.isPresent()) {
                return built;
            }
        }
        if (args.size() == 2 && LITERALS.matcher(args.get(1)).matches() && unquote(args.get(1)).contains("''")) {
            return java.util.Optional.of("'" + unquote(args.get(1)) + "' has no parameters, so it is printed as is,"
                    + " both quotes of '' included (write one: ')");
        }
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

    /** Why {@code message} (source text) is built in the other style, if it is. */
    private static java.util.Optional<String> builtMessage(String message) {
        String shown = message.replaceAll("\\s+", " ");
        if (message.startsWith("()")) {
            String body = message.substring(message.indexOf("->") + 2).strip();
            if (formats(body) || joins(body)) {
                return java.util.Optional.of("'" + shown + "' builds its message in a supplier: write a MessageFormat"
                        + " pattern and its parameters, LOG.log(level, \"... {0}\", value)");
            }
            return java.util.Optional.empty();
        }
        if (formats(message) || joins(message)) {
            return java.util.Optional.of("'" + shown + "' builds its message with String.format or +: write a"
                    + " MessageFormat pattern and its parameters (with a Throwable: MessageFormat.format(pattern, ...))");
        }
        return java.util.Optional.empty();
    }

    /** Whether {@code expression} is, at its top level, a {@code String.format} or {@code formatted} call. */
    private static boolean formats(String expression) {
        String top = outsideLiterals(expression);
        return top.startsWith("String.format(") || top.contains(".formatted(");
    }

    /** Whether {@code expression} joins a string literal and something else with {@code +}, at its top level. */
    private static boolean joins(String expression) {
        List<String> operands = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < expression.length(); i++) {
            char c = expression.charAt(i);
            if (c == '"' || c == '\'') {
                i = skipLiteral(expression, i);
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (c == '+' && depth == 0) {
                operands.add(expression.substring(start, i).strip());
                start = i + 1;
            }
        }
        operands.add(expression.substring(start).strip());
        return operands.size() > 1 && operands.stream().anyMatch(o -> o.startsWith("\""))
                && operands.stream().anyMatch(o -> !o.startsWith("\""));
    }

    /** {@code expression} with the text of its string literals left out (their quotes stay). */
    private static String outsideLiterals(String expression) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < expression.length(); i++) {
            char c = expression.charAt(i);
            if (c == '"' || c == '\'') {
                int end = skipLiteral(expression, i);
                out.append(c).append(c);
                i = end;
            } else {
                out.append(c);
            }
        }
        return out.toString();
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
