package dev.kgpu.agent;

import dev.kgpu.agent.testing.LogPatterns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every log call of the shared libraries (nvml-ffm's modules) prints what it means ({@link LogPatterns}); and the
 * check finds what it must.
 */
class LogPatternsTest {

    /** nvml-ffm's modules, each in a folder beside this one (tests run in the module's folder). */
    static final List<String> SHARED_MODULES = List.of("nvml", "nvidia-config", "agent-kit", "cdi", "kubelet-api");

    @Test
    void everyLogPatternOfTheSharedModulesPrintsItsParameters() {
        List<String> problems = new ArrayList<>();
        for (String module : SHARED_MODULES) {
            Path sources = Path.of("..", module, "src", "main", "java");
            assertThat(sources).as("the sources of %s", module).isDirectory();
            problems.addAll(LogPatterns.problems(sources));
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void findsPrintfPlaceholdersAndPlaceholdersHiddenBySingleQuotes(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("Bad.java"), """
                class Bad {
                    void f(String a, Exception e) {
                        LOG.log(Level.WARNING, "the file '%s' is gone", a);
                        LOG.log(Level.WARNING, "the file '{0}' is gone", a);
                        LOG.log(Level.WARNING, "the file ''{0}'' "
                                + "is gone, it''s {1}", a, f(a, "x"));
                        LOG.log(Level.WARNING, "it's '{0}' with no parameters");
                        LOG.log(Level.INFO, "stopping: removing the plugin''s sockets");
                        LOG.log(Level.WARNING, "failed", e);
                        LOG.log(Level.INFO, "listening on :{0,number,#}/metrics, {1,number} series", 9400, 1234567);
                    }
                }
                """);

        assertThat(LogPatterns.problems(dir)).containsExactly(
                "Bad.java:3: 'the file '%s' is gone' has a printf placeholder, which System.Logger prints as is",
                "Bad.java:4: 'the file '{0}' is gone' never prints {0}: a single quote hides it (write two: '')",
                "Bad.java:8: 'stopping: removing the plugin''s sockets' has no parameters, so it is printed as is, both"
                        + " quotes of '' included (write one: ')");
    }

    @Test
    void checksTheMessageOfALogOncePerCauseLikeALogCall(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("Retries.java"), """
                class Retries {
                    void f(OncePerCause nvml, String problem) {
                        nvml.occurred(Level.ERROR, problem, "NVML is not available ({0})", problem);
                        nvml.occurred(Level.ERROR, problem, "NVML is not available (%s)", problem);
                        nvml.occurred(Level.ERROR, "driver", "NVML isn't available ({0})", problem);
                    }
                }
                """);

        assertThat(LogPatterns.problems(dir)).containsExactly(
                "Retries.java:4: 'NVML is not available (%s)' has a printf placeholder, which System.Logger prints as is",
                "Retries.java:5: 'NVML isn't available ({0})' never prints {0}: a single quote hides it (write two: '')");
    }

    @Test
    void findsMessagesBuiltWithStringFormatOrPlusInASupplierOrNot(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("Styles.java"), """
                class Styles {
                    void f(String a, int n, Exception e, Warning warning) {
                        LOG.log(Level.WARNING, () -> String.format("the file %s is gone", a));
                        LOG.log(Level.WARNING, () -> "it's %s".formatted(a));
                        LOG.log(Level.INFO, () -> "Running with config:\\n" + a);
                        LOG.log(Level.ERROR, "handling " + a + " failed", e);
                        LOG.log(Level.ERROR, String.format("%d GPUs", n));
                        LOG.log(Level.ERROR, MessageFormat.format("handling {0} failed", a), e);
                        LOG.log(Level.WARNING, "the file {0} is gone, " + "it''s {1}", a, n);
                        LOG.log(Level.WARNING, warning.toString());
                        LOG.log(Level.WARNING, warning::toString);
                        LOG.log(Level.WARNING, () -> String.valueOf(warning));
                        LOG.log(Level.INFO, "{0} + {1}", a, f(a + "x"));
                    }
                }
                """);

        assertThat(LogPatterns.problems(dir)).containsExactly(
                "Styles.java:3: '() -> String.format(\"the file %s is gone\", a)' builds its message in a supplier:"
                        + " write a MessageFormat pattern and its parameters, LOG.log(level, \"... {0}\", value)",
                "Styles.java:4: '() -> \"it's %s\".formatted(a)' builds its message in a supplier: write a MessageFormat"
                        + " pattern and its parameters, LOG.log(level, \"... {0}\", value)",
                "Styles.java:5: '() -> \"Running with config:\\n\" + a' builds its message in a supplier: write a"
                        + " MessageFormat pattern and its parameters, LOG.log(level, \"... {0}\", value)",
                "Styles.java:6: '\"handling \" + a + \" failed\"' builds its message with String.format or +: write a"
                        + " MessageFormat pattern and its parameters (with a Throwable: MessageFormat.format(pattern, ...))",
                "Styles.java:7: 'String.format(\"%d GPUs\", n)' builds its message with String.format or +: write a"
                        + " MessageFormat pattern and its parameters (with a Throwable: MessageFormat.format(pattern, ...))");
    }
}
