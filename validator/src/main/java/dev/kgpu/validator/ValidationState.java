package dev.kgpu.validator;

import dev.kgpu.validator.core.Verdict;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** The verdicts of the latest finished pass, for the readiness check. Thread-safe. */
@ApplicationScoped
public class ValidationState {

    private volatile List<Verdict> latest = List.of();

    public void record(List<Verdict> verdicts) {
        latest = List.copyOf(verdicts);
    }

    /** Empty until a pass has finished. */
    public List<Verdict> latest() {
        return latest;
    }

    public boolean allValid() {
        List<Verdict> verdicts = latest;
        return !verdicts.isEmpty() && verdicts.stream().allMatch(Verdict::passed);
    }
}
