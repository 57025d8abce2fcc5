package dev.kgpu.gpucheck.report;

/**
 * One agent's start on this machine.
 *
 * @param agent         {@code plugin}, {@code discovery}, {@code exporter}, {@code validator}
 * @param readyMeans    what "ready" means for it, e.g. {@code registered with the kubelet}
 * @param startToReadyMs from spawning the process to ready (the validator: to its exit), or -1 when it never was
 * @param rssKib        resident memory at ready (the validator: its peak), or -1 when unknown
 * @param rssKind       {@code at ready} or {@code peak}
 * @param exitStatus    how it exited when stopped (0 after SIGTERM, which the agents relay; 130 after SIGINT), or -1
 *                      when it had to be killed
 * @param aotCache      whether Java's AOT cache was used
 */
public record AgentFigures(String agent, String readyMeans, long startToReadyMs, long rssKib, String rssKind,
                           int exitStatus, String aotCache) {
}
