/*
 * Test-only control symbols of the mock libnvidia-ml.so.1 (not part of NVML). See ../README.md.
 */
#ifndef MOCK_NVML_CONTROL_H
#define MOCK_NVML_CONTROL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Loads a profile (a name resolved in MOCK_NVML_PROFILE_DIR, or a path) now, replacing the simulated node; device
 * handles from before become stale. 0 on success, -1 on error (the old node stays; see mockNvmlLastError). */
int mockNvmlSetProfile(const char *nameOrPath);

/* The text of the last control or profile error ("" if none), valid until this thread's next call. */
const char *mockNvmlLastError(void);

/* Delivers an XID critical error on a GPU (GPU- UUID) or MIG device (MIG- UUID), as an `xid` events-file line. */
int mockNvmlInjectXid(const char *uuid, unsigned long long xid);

/* Delivers a single-bit (doubleBit == 0) or double-bit ECC event and counts it, as an `ecc` events-file line. */
int mockNvmlInjectEcc(const char *uuid, int doubleBit);

/* 0 freezes the telemetry walk (gauges read the profile's values, counters stop), 1 resumes it. */
int mockNvmlSetWalk(int enabled);

/* The next `times` calls (times < 0: until cleared, 0: clear) of the exported function `function` return
 * nvmlReturn without doing anything. */
int mockNvmlFailNext(const char *function, int nvmlReturn, int times);

void mockNvmlClearFailures(void);

/* Back to the profile from the environment, failures cleared, walk as the profile/environment says. */
void mockNvmlReset(void);

/* Parses one events-file line (without its newline) as the events file is read, delivering nothing: 1 an event,
 * 0 a blank or comment line, -1 a line that would be skipped (why in mockNvmlLastError). For tests of the parser. */
int mockNvmlParseEventLine(const char *line);

#ifdef __cplusplus
}
#endif

#endif
