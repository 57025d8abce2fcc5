package dev.kgpu.validator.core;

import java.text.MessageFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One pass over the configured components, in order. Each component's status file is handled like
 * NVIDIA's: removed first, written on success. The first failure stops the pass (later components depend
 * on earlier ones) and the rest are {@link Verdict.Skipped}.
 *
 * <p>With {@code WITH_WAIT=true} the {@code driver}, {@code toolkit}, kernel-module, {@code cc-manager} and
 * {@code vgpu-devices} components are retried every
 * {@code interval} until they pass, as NVIDIA's driver init container does; the pod-based components have
 * their own bounded waits.
 */
public final class ValidationPass {

    /** What happens to an existing status file before its component is checked. */
    public enum FilePolicy {
        /** Remove it first (NVIDIA's behaviour; one-shot mode and the daemon's first pass). */
        REMOVE_FIRST,
        /** Leave it while re-validating; replace it on success, remove it on failure (the daemon's later passes). */
        REPLACE_ON_RESULT
    }

    private static final System.Logger LOG = System.getLogger(ValidationPass.class.getName());
    /** Retried with WITH_WAIT, as NVIDIA's runCommandWithWait retries them. */
    private static final Set<Component> WAITABLE = Set.of(Component.DRIVER, Component.TOOLKIT, Component.NVIDIA_FS,
            Component.GDRCOPY, Component.NVIDIA_PEERMEM, Component.MOFED, Component.CC_MANAGER, Component.VGPU_DEVICES);

    private final List<ComponentValidator> validators;
    private final StatusFiles statusFiles;
    private final boolean withWait;
    private final Duration interval;
    private final Sleeper sleeper;

    public ValidationPass(List<ComponentValidator> validators, StatusFiles statusFiles, boolean withWait,
                          Duration interval, Sleeper sleeper) {
        this.validators = List.copyOf(validators);
        this.statusFiles = statusFiles;
        this.withWait = withWait;
        this.interval = interval;
        this.sleeper = sleeper;
    }

    public List<Component> components() {
        return validators.stream().map(ComponentValidator::component).toList();
    }

    /** Runs every component once; one verdict per component, in order. */
    public List<Verdict> run(FilePolicy policy) throws InterruptedException {
        List<Verdict> verdicts = new ArrayList<>();
        Component failed = null;
        for (ComponentValidator validator : validators) {
            Component component = validator.component();
            if (failed != null) {
                fileError(component, () -> statusFiles.remove(component));
                verdicts.add(new Verdict.Skipped(component, failed));
                continue;
            }
            Verdict verdict = policy == FilePolicy.REMOVE_FIRST
                    ? fileError(component, () -> statusFiles.remove(component)) : null;
            if (verdict == null) {
                Outcome outcome = validate(validator);
                verdict = outcome.verdict();
                if (verdict.passed() && !outcome.statusFile()) {
                    LOG.log(System.Logger.Level.DEBUG, "{0}: no status file to write", component);
                } else if (verdict.passed()) {
                    Verdict written = fileError(component, () -> statusFiles.write(component, outcome.statusLines()));
                    verdict = written == null ? verdict : written;
                } else {
                    fileError(component, () -> statusFiles.remove(component));
                }
            }
            if (!verdict.passed()) {
                failed = component;
            }
            LOG.log(verdict.passed() ? System.Logger.Level.INFO : System.Logger.Level.ERROR, verdict.line());
            verdicts.add(verdict);
        }
        return List.copyOf(verdicts);
    }

    /**
     * Runs a status-file operation; a file that cannot be written or removed is a failed verdict (agents
     * waiting on the file would otherwise be misled), not a crash.
     */
    private static Verdict fileError(Component component, Runnable operation) {
        try {
            operation.run();
            return null;
        } catch (java.io.UncheckedIOException e) {
            return Verdict.failed(component, Layer.RUNTIME, e.getMessage()
                    + " (OUTPUT_DIR must be a writable directory, a hostPath in a DaemonSet)");
        }
    }

    private record Outcome(Verdict verdict, List<String> statusLines, boolean statusFile) {
    }

    private Outcome validate(ComponentValidator validator) throws InterruptedException {
        Component component = validator.component();
        while (true) {
            Outcome outcome = validateOnce(validator);
            if (outcome.verdict().passed() || !withWait || !WAITABLE.contains(component)) {
                return outcome;
            }
            LOG.log(System.Logger.Level.WARNING, "{0}; WITH_WAIT=true, retrying in {1} s",
                    outcome.verdict().line(), interval.toSeconds());
            sleeper.sleep(interval);
        }
    }

    private Outcome validateOnce(ComponentValidator validator) throws InterruptedException {
        Component component = validator.component();
        try {
            Evidence evidence = validator.validate();
            return new Outcome(Verdict.passed(component, evidence.summary()), evidence.statusLines(), evidence.statusFile());
        } catch (ComponentFailure e) {
            return new Outcome(Verdict.failed(component, e.layer(), e.reason()), List.of(), false);
        } catch (RuntimeException e) {
            // A bug, not a verdict: keep the daemon alive, but say so loudly.
            LOG.log(System.Logger.Level.ERROR, MessageFormat.format("unexpected error validating {0}", component), e);
            Layer layer = WAITABLE.contains(component) ? Layer.DRIVER : Layer.API;
            return new Outcome(Verdict.failed(component, layer, "unexpected " + e.getClass().getSimpleName()
                    + ": " + e.getMessage()), List.of(), false);
        }
    }
}
