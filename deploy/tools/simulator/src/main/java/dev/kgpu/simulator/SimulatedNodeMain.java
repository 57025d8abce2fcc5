package dev.kgpu.simulator;

import dev.kgpu.simulator.agents.SimulatorException;
import dev.kgpu.simulator.report.NodeReport;
import dev.kgpu.simulator.report.Summary;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The simulated node's one entry point (the README's main job): boot the simulated node, start the four
 * agents on it, print where to look, then run until Ctrl-C or SIGTERM (or stop at once with
 * {@code --exit-when-ready}). Only this class decides the exit status: 0 up (and, with {@code --exit-when-ready},
 * every validator component passed), 1 something did not come up or failed, 2 bad options.
 */
public final class SimulatedNodeMain {

    private SimulatedNodeMain() {
    }

    public static void main(String[] args) {
        SimulatorLog.init();
        System.exit(run(List.of(args), System.getenv(), System.out, System.err));
    }

    static int run(List<String> args, Map<String, String> environment, PrintStream out, PrintStream err) {
        if (SimulatorOptions.wantsHelp(args)) {
            out.print(SimulatorOptions.usage());
            return 0;
        }
        SimulatorOptions options;
        try {
            options = SimulatorOptions.parse(args, environment::get, Path.of("").toAbsolutePath());
        } catch (SimulatorOptions.OptionsException e) {
            e.problems().forEach(problem -> err.println("kgpu-sim: " + problem));
            return 2;
        }
        SimulatedNode node = null;
        try {
            node = SimulatedNode.boot(options, environment, out);
            SimulatedNode booted = node;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                booted.close();
                SimulatorLog.close();
            }, "simulated-node-shutdown"));
            if (options.footprintRuns() > 0) {
                out.print(Footprint.run(node, options.footprintRuns(), out));
                return 0;
            }
            NodeReport report = node.bringUp();
            out.print(Summary.text(report, options.exitWhenReady()));
            out.flush();
            if (options.exitWhenReady()) {
                return report.healthy() ? 0 : 1;
            }
            node.awaitClosed();
            return 0;
        } catch (SimulatorException e) {
            if (node != null && node.stopping()) {
                err.println("kgpu-sim: stopped before the node was up");
                return 1;
            }
            err.println("kgpu-sim: " + e.getMessage());
            if (node != null && node.layout() != null) {
                err.println("kgpu-sim: logs are in " + node.layout().logs());
            }
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (RuntimeException e) {
            err.println("kgpu-sim: unexpected error: " + e);
            e.printStackTrace(err);
            return 1;
        } finally {
            if (node != null) {
                node.close();
            }
            SimulatorLog.close();
        }
    }
}
