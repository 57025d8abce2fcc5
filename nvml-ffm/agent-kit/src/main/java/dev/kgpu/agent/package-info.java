/**
 * What every kgpu agent's lifecycle shares, outside its domain: {@link dev.kgpu.agent.Launch}, the one hand-off of
 * the settings from the entry point into Quarkus, read by {@link dev.kgpu.agent.Startup} before Quarkus starts (or
 * the one line to end with); the {@link dev.kgpu.agent.Supervisor} engine that runs an agent's handler on its one
 * thread (queue, timers, SIGHUP reload through the {@link dev.kgpu.agent.HangupSignal} relay, stop, exit status);
 * the {@link dev.kgpu.agent.Backoff} between retries of a failed step and {@link dev.kgpu.agent.OncePerCause}, which
 * logs each cause of trouble once; and {@link dev.kgpu.agent.ProbeLog}, a health check's answer logged when it
 * changes; and {@link dev.kgpu.agent.ExecutablePages}, which hands a native executable's start-up pages back to the
 * kernel once the agent serves. Settings are read by {@link dev.kgpu.agent.settings} and refused in {@link dev.kgpu.config}'s words; NVML
 * is {@link dev.kgpu.nvml}.
 */
package dev.kgpu.agent;
