package dev.kgpu.agent.settings;

import dev.kgpu.config.v1.ValueType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The shared parser as a tool uses it: typed problems a tool words itself, and the last value of each flag. */
class CommandLineTest {

    static final Setting<String> PROFILE = Setting.of(List.of("profile", "p"), List.of("KGPU_SIM_PROFILE"),
            ValueType.string(), "dgx-a100", "mock NVML profile");
    static final Setting<Boolean> DRA = Setting.of(List.of("dra"), List.of(), ValueType.bool(), false, "run the DRA driver");
    static final Setting<String> WORK_DIR = Setting.of(List.of("work-dir"), List.of(), ValueType.string(), "", "the node's folder");

    static CommandLine parse(String... args) {
        return CommandLine.parse(args, List.of(PROFILE, DRA, WORK_DIR), "kgpu-sim");
    }

    @Test
    void theLastOccurrenceOfAFlagWinsInAnyOfItsSpellings() {
        CommandLine line = parse("--profile=rtx3060", "-p", "mig-mixed", "--dra", "--work-dir", "/tmp/node");

        assertThat(line.problems()).isEmpty();
        assertThat(line.last(PROFILE)).hasValue("mig-mixed");
        assertThat(line.last(DRA)).hasValue("true");
        assertThat(line.last(WORK_DIR)).hasValue("/tmp/node");
        assertThat(parse().last(PROFILE)).isEmpty();
        assertThat(parse("-h").helpRequested()).isTrue();
    }

    @Test
    void eachUnreadableArgumentIsATypedProblemWhichAgentsWordAsBefore() {
        CommandLine line = parse("stray", "--speed=fast", "--=x", "--dra", "false", "--work-dir");

        assertThat(line.problems()).containsExactly(
                new CommandLine.Problem.Stray("stray"),
                new CommandLine.Problem.UnknownFlag("--speed=fast", "--speed", "fast"),
                new CommandLine.Problem.BadSyntax("--=x"),
                new CommandLine.Problem.Stray("false"),
                new CommandLine.Problem.MissingValue("--work-dir", WORK_DIR));
        assertThat(line.failures()).extracting(Object::toString).containsExactly(
                "command line was 'stray' but it must hold only flags, as kgpu-sim takes no arguments; a boolean flag takes"
                        + " its value as --flag=false, not as the next argument",
                "--speed was 'fast' but it is not a flag of kgpu-sim (see --help)",
                "--=x was '--=x' but it is not valid flag syntax; write --name=value",
                "command line was 'false' but it must hold only flags, as kgpu-sim takes no arguments; a boolean flag takes"
                        + " its value as --flag=false, not as the next argument",
                "--work-dir was 'null' but it needs a value: --work-dir=<string>");
    }
}
