package dev.kgpu.gpucheck;

import dev.kgpu.gpucheck.report.Report;
import dev.kgpu.gpucheck.report.ReportWriter;

import java.util.List;

/**
 * The check's one entry point (the {@code run} script calls it): read the flags, run the check, print the
 * report's verdict and folder. Exit 0 when every value matched, 1 on any mismatch or a step that could not
 * run, 2 for bad flags.
 */
public final class GpuCheckMain {

    private GpuCheckMain() {
    }

    public static void main(String[] args) {
        GpuCheckOptions options;
        try {
            options = GpuCheckOptions.parse(List.of(args));
        } catch (GpuCheckOptions.OptionsException e) {
            e.problems().forEach(p -> System.err.println("gpu-check: " + p));
            System.exit(2);
            return;
        }
        Report report = new GpuCheck(options, System.getenv(), System.out).run();
        System.out.println();
        System.out.print(ReportWriter.summary(report));
        System.out.println("gpu-check: " + report.outcome().word() + "; report in " + options.out());
        System.exit(report.outcome() == Report.Outcome.ALL_MATCH ? 0 : 1);
    }
}
