/**
 * What every kgpu agent's lifecycle shares, outside its domain: {@link dev.kgpu.agent.Startup}, the settings
 * read before Quarkus starts (or the one line to end with); the {@link dev.kgpu.agent.Backoff} between retries
 * of a failed step; the {@link dev.kgpu.agent.HangupSignal} relay that turns SIGHUP into a reload; and
 * {@link dev.kgpu.agent.ProbeLog}, a health check's answer logged when it changes. Settings are read by {@link dev.kgpu.agent.settings} and refused in {@link dev.kgpu.config}'s words; NVML is {@link dev.kgpu.nvml}.
 */
package dev.kgpu.agent;
