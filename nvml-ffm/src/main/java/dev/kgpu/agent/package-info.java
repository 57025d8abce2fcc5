/**
 * What every kgpu agent's lifecycle shares, outside its domain: the {@link dev.kgpu.agent.Backoff} between
 * retries of a failed step and the {@link dev.kgpu.agent.HangupSignal} relay that turns SIGHUP into a
 * reload. Settings live in {@link dev.kgpu.config}; NVML in {@link dev.kgpu.nvml}.
 */
package dev.kgpu.agent;
