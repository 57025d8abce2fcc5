package dev.kgpu.validator;

import dev.kgpu.validator.adapters.DirectoryStatusFiles;
import dev.kgpu.validator.core.Sleeper;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * What gpu-operator's pods do with a shell, as commands of the validator's image (kgpu's images have no
 * shell), run by {@link ValidatorMain#main} before Quarkus starts (no HTTP port, no settings):
 * <ul>
 *   <li>{@code wait-for FILE}: returns once FILE exists, checking every second, as the gate init container's
 *       {@code until [ -f FILE ]; do sleep 5; done};</li>
 *   <li>{@code remove-ready-files FOLDER}: the validator's preStop, {@code rm -f FOLDER/*-ready}.</li>
 * </ul>
 */
final class StatusFileCommands {

    static final Duration POLL = Duration.ofSeconds(1);

    private StatusFileCommands() {
    }

    /** The command's exit status (0 done, 1 bad usage or a failure), or empty when {@code args} names none. */
    static OptionalInt run(List<String> args, Sleeper sleeper, PrintStream out, PrintStream err) {
        if (args.isEmpty() || !(args.getFirst().equals("wait-for") || args.getFirst().equals("remove-ready-files"))) {
            return OptionalInt.empty();
        }
        String command = args.getFirst();
        if (args.size() != 2 || args.get(1).isBlank()) {
            err.println("kgpu-validator: " + command + " was given '" + String.join(" ", args.subList(1, args.size()))
                    + "' but it takes one " + (command.equals("wait-for") ? "file" : "folder"));
            return OptionalInt.of(1);
        }
        Path path = Path.of(args.get(1));
        if (command.equals("wait-for")) {
            return OptionalInt.of(waitFor(path, sleeper, out));
        }
        try {
            new DirectoryStatusFiles(path).removeAllReadyFiles();
            out.println("removed the *-ready files in " + path);
            return OptionalInt.of(0);
        } catch (UncheckedIOException e) {
            err.println("kgpu-validator: remove-ready-files: " + e.getMessage());
            return OptionalInt.of(1);
        }
    }

    private static int waitFor(Path file, Sleeper sleeper, PrintStream out) {
        if (!Files.exists(file)) {
            out.println("waiting for " + file);
        }
        while (!Files.exists(file)) {
            try {
                sleeper.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
        }
        out.println(file + " is there");
        return 0;
    }
}
