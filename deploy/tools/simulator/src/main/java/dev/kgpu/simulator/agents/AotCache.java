package dev.kgpu.simulator.agents;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Whether an agent ran with Java's AOT cache ({@code <app>/app.aot}, which Quarkus writes at the end of the
 * agent's {@code Packaged*IT} run in {@code ./mvnw verify}, {@code quarkus.package.jar.aot.enabled} being on).
 *
 * @param file     the cache passed with {@code -XX:AOTCache}, or empty when the app has none
 * @param rejected the JVM's own words when it could not use the cache (a cache only loads in the JVM build
 *                 that wrote it, with the same class path)
 */
public record AotCache(Optional<Path> file, Optional<String> rejected) {

    public static AotCache none() {
        return new AotCache(Optional.empty(), Optional.empty());
    }

    public static AotCache of(Path file) {
        return new AotCache(Optional.of(file), Optional.empty());
    }

    /** Used: passed and not rejected. */
    public boolean used() {
        return file.isPresent() && rejected.isEmpty();
    }

    /** For the summary: {@code yes}, {@code no (...)}. */
    public String describe() {
        if (file.isEmpty()) {
            return "no (the app has no app.aot)";
        }
        return rejected.map(r -> "no (the JVM rejected app.aot: " + r + ")").orElse("yes (app.aot)");
    }

    /** This cache, with the JVM's rejection if the agent's log has one (unified logging tag {@code aot} or {@code cds}). */
    AotCache checkedAgainst(Path log) {
        if (file.isEmpty()) {
            return this;
        }
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            Optional<String> complaint = lines.limit(200)
                    .filter(l -> {
                        String lower = l.toLowerCase(Locale.ROOT);
                        return (lower.contains("[aot") || lower.contains("[cds")) && (lower.contains("warning") || lower.contains("error"));
                    })
                    .findFirst().map(String::strip);
            return new AotCache(file, complaint);
        } catch (IOException | java.io.UncheckedIOException e) {
            return this;
        }
    }
}
