/*
 * NVIDIA Management Library (NVML) header notice: this file includes NVIDIA's nvml.h (through mock.h).
 *
 * Copyright 1993-2023 NVIDIA Corporation.  All rights reserved.
 *
 * NOTICE TO USER:
 *
 * This source code is subject to NVIDIA ownership rights under U.S. and
 * international Copyright laws.  Users and possessors of this source code
 * are hereby granted a nonexclusive, royalty-free license to use this code
 * in individual and commercial software.
 *
 * NVIDIA MAKES NO REPRESENTATION ABOUT THE SUITABILITY OF THIS SOURCE
 * CODE FOR ANY PURPOSE.  IT IS PROVIDED "AS IS" WITHOUT EXPRESS OR
 * IMPLIED WARRANTY OF ANY KIND.  NVIDIA DISCLAIMS ALL WARRANTIES WITH
 * REGARD TO THIS SOURCE CODE, INCLUDING ALL IMPLIED WARRANTIES OF
 * MERCHANTABILITY, NONINFRINGEMENT, AND FITNESS FOR A PARTICULAR PURPOSE.
 * IN NO EVENT SHALL NVIDIA BE LIABLE FOR ANY SPECIAL, INDIRECT, INCIDENTAL,
 * OR CONSEQUENTIAL DAMAGES, OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS
 * OF USE, DATA OR PROFITS,  WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE
 * OR OTHER TORTIOUS ACTION,  ARISING OUT OF OR IN CONNECTION WITH THE USE
 * OR PERFORMANCE OF THIS SOURCE CODE.
 *
 * U.S. Government End Users.   This source code is a "commercial item" as
 * that term is defined at  48 C.F.R. 2.101 (OCT 1995), consisting  of
 * "commercial computer  software"  and "commercial computer software
 * documentation" as such terms are  used in 48 C.F.R. 12.212 (SEPT 1995)
 * and is provided to the U.S. Government only as a commercial end item.
 * Consistent with 48 C.F.R.12.212 and 48 C.F.R. 227.7202-1 through
 * 227.7202-4 (JUNE 1995), all U.S. Government End Users acquire the
 * source code with only those rights set forth herein.
 *
 * Any use of this source code in individual and commercial software must
 * include, in the user documentation and internal comments to the code,
 * the above Disclaimer and U.S. Government End Users Notice.
 */

/*
 * The mock's core: global state and its lock, profile selection and reloading, the telemetry walk, device
 * handles, injected failures, init/shutdown and the test-only control symbols.
 */
#include "mock.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifndef MOCK_NVML_DEFAULT_PROFILE_DIR
#define MOCK_NVML_DEFAULT_PROFILE_DIR ""
#endif

mock_state S = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .walk_override = -1,
};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *const FN_NAMES[FN_COUNT] = {
#define FN_NAME(name) #name,
    FN_LIST(FN_NAME)
#undef FN_NAME
};

static void init_once(void) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&S.events_changed, &attr);
    pthread_condattr_destroy(&attr);
}

static void lock_state(void) {
    pthread_once(&once, init_once);
    pthread_mutex_lock(&S.lock);
}

static void unlock_state(void) {
    pthread_mutex_unlock(&S.lock);
}

/* ---- time ------------------------------------------------------------------------------------------------- */

double mock_monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1000.0 + (double) ts.tv_nsec / 1e6;
}

long long mock_realtime_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long) ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* ---- errors --------------------------------------------------------------------------------------------- */

void mock_set_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.last_error, sizeof S.last_error, fmt, ap);
    va_end(ap);
}

void mock_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.last_error, sizeof S.last_error, fmt, ap);
    va_end(ap);
    const char *quiet = getenv("MOCK_NVML_QUIET");
    if (quiet == NULL || strcmp(quiet, "1") != 0) {
        fprintf(stderr, "mock-nvml: %s\n", S.last_error);
    }
}

/* ---- walk ----------------------------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t mock_hash(const char *s, uint64_t seed) {
    uint64_t h = 1469598103934665603ull ^ seed;
    for (; *s != '\0'; s++) {
        h ^= (unsigned char) *s;
        h *= 1099511628211ull;
    }
    uint64_t x = h;
    return splitmix(&x);
}

/* Walk time of the current NVML call: every value one call reads belongs to the same instant. */
double walk_time_ms(void) {
    return S.walking ? S.call_ms - S.walk_origin_ms : S.walk_frozen_ms;
}

static long long step_ms(void) {
    return S.node != NULL ? S.node->step_ms : 1000;
}

/* s in [-1, 1] for walk step k */
static double walk_shape(uint64_t key, long long k) {
    const double two_pi = 6.283185307179586;
    uint64_t x = key;
    double p1 = 60.0 + (double) (splitmix(&x) % 240001u) / 1000.0;
    double p2 = 6.0 + (double) (splitmix(&x) % 24001u) / 1000.0;
    double ph1 = (double) (splitmix(&x) >> 11) * (two_pi / 9007199254740992.0);
    double ph2 = (double) (splitmix(&x) >> 11) * (two_pi / 9007199254740992.0);
    double t = (double) k * (double) step_ms() / 1000.0;
    return (sin(two_pi * t / p1 + ph1) + 0.5 * sin(two_pi * t / p2 + ph2)) / 1.5;
}

static double walked(const walkable *w, long long k, uint64_t salt) {
    if (salt == 0 && w->cached && w->cached_step == k) {
        return w->cached_value;
    }
    double s = walk_shape(w->key ^ salt, k);
    double v = s >= 0 ? w->value + s * (w->max - w->value) : w->value + s * (w->value - w->min);
    if (v < w->min) {
        v = w->min;
    }
    if (v > w->max) {
        v = w->max;
    }
    if (salt == 0) {
        walkable *cache = (walkable *) w; /* the cache lives in the node, which the state lock guards */
        cache->cached = 1;
        cache->cached_step = k;
        cache->cached_value = v;
    }
    return v;
}

double gauge_at(const walkable *w, double walk_ms, int walking, uint64_t salt) {
    if (!walking || !w->walks) {
        return w->value;
    }
    long long k = (long long) floor(walk_ms / (double) step_ms());
    return walked(w, k, salt);
}

double gauge_now(const walkable *w) {
    return gauge_at(w, walk_time_ms(), S.walking, 0);
}

unsigned gauge_now_uint(const walkable *w) {
    double v = gauge_now(w);
    if (v <= 0) {
        return 0;
    }
    if (v >= 4294967295.0) {
        return 4294967295u;
    }
    return (unsigned) llround(v);
}

static double rate_at(const walkable *rate, long long k) {
    return rate->walks ? walked(rate, k, 0) : rate->value;
}

unsigned long long counter_now(counter *c) {
    double tau = walk_time_ms();
    double total;
    if (!c->rate.walks) {
        total = c->rate.value * tau / 1000.0;
    } else {
        long long step = step_ms();
        long long k = (long long) floor(tau / (double) step);
        if (k - c->done_steps > 200000) {
            /* a very long gap: integrate at the mean rate instead of step by step */
            c->acc += c->rate.value * (double) (k - c->done_steps) * (double) step / 1000.0;
            c->done_steps = k;
        }
        while (c->done_steps < k) {
            c->acc += rate_at(&c->rate, c->done_steps) * (double) step / 1000.0;
            c->done_steps++;
        }
        total = c->acc + rate_at(&c->rate, k) * (tau - (double) k * (double) step) / 1000.0;
    }
    if (total < 0) {
        total = 0;
    }
    unsigned long long v = c->base + (unsigned long long) floor(total) + c->injected;
    if (v < c->last) {
        v = c->last;
    }
    c->last = v;
    return v;
}

/* ---- handles -------------------------------------------------------------------------------------------- */

#define HANDLE_MAGIC 0x4E56ull

static uintptr_t encode(int kind, int gpu, int sub) {
    uint64_t v = (HANDLE_MAGIC << 48) | ((uint64_t) kind << 44) | ((uint64_t) (S.generation & 0xFFFFu) << 28)
                 | ((uint64_t) gpu << 8) | (uint64_t) sub;
    return (uintptr_t) v;
}

nvmlDevice_t handle_gpu(int gpu) {
    return (nvmlDevice_t) encode(HANDLE_GPU, gpu, 0);
}

nvmlDevice_t handle_mig(int gpu, int mig) {
    return (nvmlDevice_t) encode(HANDLE_MIG, gpu, mig);
}

nvmlGpuInstance_t handle_gi(int gpu, int gi) {
    return (nvmlGpuInstance_t) encode(HANDLE_GI, gpu, gi);
}

nvmlComputeInstance_t handle_ci(int gpu, int mig) {
    return (nvmlComputeInstance_t) encode(HANDLE_CI, gpu, mig);
}

static int visible_gpus(void) {
    return S.node == NULL || S.no_gpus ? 0 : S.node->gpu_count;
}

static int decode(const void *handle, int kind, int *gpu, int *sub) {
    uint64_t v = (uint64_t) (uintptr_t) handle;
    if ((v >> 48) != HANDLE_MAGIC || (int) ((v >> 44) & 0xF) != kind
        || ((v >> 28) & 0xFFFFu) != (S.generation & 0xFFFFu)) {
        return -1;
    }
    *gpu = (int) ((v >> 8) & 0xFFFFFu);
    *sub = (int) (v & 0xFFu);
    return *gpu < visible_gpus() ? 0 : -1;
}

nvmlReturn_t resolve_device(nvmlDevice_t handle, mock_gpu **gpu, mig_device **mig) {
    int g, sub;
    *mig = NULL;
    if (handle == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (decode(handle, HANDLE_GPU, &g, &sub) == 0) {
        *gpu = &S.node->gpus[g];
    } else if (decode(handle, HANDLE_MIG, &g, &sub) == 0 && sub < S.node->gpus[g].mig.device_count
               && S.node->gpus[g].mig.mode == NVML_DEVICE_MIG_ENABLE) {
        *gpu = &S.node->gpus[g];
        *mig = &S.node->gpus[g].mig.devices[sub];
    } else {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return (*gpu)->lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

nvmlReturn_t resolve_gpu(nvmlDevice_t handle, mock_gpu **gpu) {
    mig_device *mig;
    nvmlReturn_t r = resolve_device(handle, gpu, &mig);
    if (r == NVML_SUCCESS && mig != NULL) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    return r;
}

nvmlReturn_t resolve_gi(nvmlGpuInstance_t handle, mock_gpu **gpu, gpu_instance **gi) {
    int g, sub;
    if (handle == NULL || decode(handle, HANDLE_GI, &g, &sub) != 0 || sub >= S.node->gpus[g].mig.gi_count
        || S.node->gpus[g].mig.mode != NVML_DEVICE_MIG_ENABLE) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *gpu = &S.node->gpus[g];
    *gi = &S.node->gpus[g].mig.gis[sub];
    return (*gpu)->lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

nvmlReturn_t resolve_ci(nvmlComputeInstance_t handle, mock_gpu **gpu, mig_device **mig) {
    int g, sub;
    if (handle == NULL || decode(handle, HANDLE_CI, &g, &sub) != 0 || sub >= S.node->gpus[g].mig.device_count
        || S.node->gpus[g].mig.mode != NVML_DEVICE_MIG_ENABLE) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *gpu = &S.node->gpus[g];
    *mig = &S.node->gpus[g].mig.devices[sub];
    return (*gpu)->lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

int find_gpu_by_uuid(const char *uuid, int *mig_index) {
    *mig_index = -1;
    int n = visible_gpus();
    for (int i = 0; i < n; i++) {
        const mock_gpu *g = &S.node->gpus[i];
        if (strcasecmp(g->uuid, uuid) == 0) {
            return i;
        }
        if (g->mig.mode != NVML_DEVICE_MIG_ENABLE) {
            continue;
        }
        for (int m = 0; m < g->mig.device_count; m++) {
            if (strcasecmp(g->mig.devices[m].uuid, uuid) == 0) {
                *mig_index = m;
                return i;
            }
        }
    }
    return -1;
}

static int parse_hex_field(const char *s, size_t len, size_t max_len, unsigned *out) {
    if (len == 0 || len > max_len) {
        return -1;
    }
    unsigned v = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') {
            d = (unsigned) (c - '0');
        } else if (c >= 'a' && c <= 'f') {
            d = (unsigned) (c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            d = (unsigned) (c - 'A' + 10);
        } else {
            return -1;
        }
        v = (v << 4) | d;
    }
    *out = v;
    return 0;
}

/* domain:bus:device.function with a 4- or 8-digit domain, any case, function 0 */
int find_gpu_by_bus_id(const char *bus_id) {
    const char *c1 = strchr(bus_id, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    const char *dot = c2 ? strchr(c2 + 1, '.') : NULL;
    unsigned domain, bus, device, function;
    if (dot == NULL || parse_hex_field(bus_id, (size_t) (c1 - bus_id), 8, &domain) != 0
        || parse_hex_field(c1 + 1, (size_t) (c2 - c1 - 1), 2, &bus) != 0
        || parse_hex_field(c2 + 1, (size_t) (dot - c2 - 1), 2, &device) != 0
        || parse_hex_field(dot + 1, strlen(dot + 1), 1, &function) != 0 || function != 0) {
        return -2;
    }
    int n = visible_gpus();
    for (int i = 0; i < n; i++) {
        const mock_pci *p = &S.node->gpus[i].pci;
        if (p->domain == domain && p->bus == bus && p->device == device) {
            return i;
        }
    }
    return -1;
}

nvmlReturn_t copy_string(char *out, unsigned length, const char *value) {
    if (out == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    size_t n = strlen(value);
    if (n + 1 > length) {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    memcpy(out, value, n + 1);
    return NVML_SUCCESS;
}

/* ---- profiles ------------------------------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int resolve_profile_path(const char *request, char *out, size_t size) {
    if (request == NULL || request[0] == '\0') {
        mock_set_error("the profile name was '' but it must name a profile (e.g. dgx-a100) or a .json file");
        return -1;
    }
    if (strchr(request, '/') != NULL || ends_with(request, ".json")) {
        if ((size_t) snprintf(out, size, "%s", request) >= size) {
            mock_set_error("the profile path '%.200s...' is too long", request);
            return -1;
        }
        return 0;
    }
    for (const char *p = request; *p != '\0'; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
              || c == '.')) {
            mock_set_error("the profile name was '%.200s' but it may only contain letters, digits, '-', '_' and '.'",
                           request);
            return -1;
        }
    }
    const char *dir = getenv("MOCK_NVML_PROFILE_DIR");
    if (dir == NULL || dir[0] == '\0') {
        dir = MOCK_NVML_DEFAULT_PROFILE_DIR;
    }
    if (dir[0] == '\0') {
        mock_set_error("profile '%s' cannot be found: MOCK_NVML_PROFILE_DIR is not set and no folder was compiled in",
                       request);
        return -1;
    }
    if ((size_t) snprintf(out, size, "%s/%s.json", dir, request) >= size) {
        mock_set_error("the profile path for '%.200s' is too long", request);
        return -1;
    }
    return 0;
}

static int env_walk(int *value) {
    const char *w = getenv("MOCK_NVML_WALK");
    if (w == NULL || w[0] == '\0') {
        return 0;
    }
    if (strcmp(w, "0") == 0 || strcmp(w, "1") == 0) {
        *value = w[0] == '1';
        return 1;
    }
    return -1;
}

static int decide_walking(const mock_node *node) {
    if (S.walk_override >= 0) {
        return S.walk_override;
    }
    int v;
    if (env_walk(&v) == 1) {
        return v;
    }
    return node != NULL && node->walk_enabled;
}

static void watch(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0) {
        S.watched_mtime = st.st_mtim;
        S.watched_size = st.st_size;
        S.watched_ino = st.st_ino;
    } else {
        memset(&S.watched_mtime, 0, sizeof S.watched_mtime);
        S.watched_size = -1;
        S.watched_ino = 0;
    }
    S.last_watch_ms = mock_monotonic_ms();
}

static void install(mock_node *node, int keep_handles) {
    mock_node *old = S.node;
    if (!(keep_handles && profile_same_devices(old, node))) {
        S.generation++;
    }
    S.node = node;
    profile_free(old);
    S.walking = decide_walking(node);
    S.call_ms = mock_monotonic_ms();
    S.walk_origin_ms = S.call_ms;
    S.walk_frozen_ms = 0;
    watch(node->path);
    events_reset_global_offset();
}

/* Loads request (a name or path) and installs it; -1 with S.last_error set. Lock held. */
static int load_request(const char *request, int keep_handles) {
    char path[4096];
    if (resolve_profile_path(request, path, sizeof path) != 0) {
        return -1;
    }
    int walk;
    if (env_walk(&walk) < 0) {
        mock_set_error("MOCK_NVML_WALK was '%.100s' but it must be 0 or 1", getenv("MOCK_NVML_WALK"));
        return -1;
    }
    char err[MOCK_ERR_LEN];
    mock_node *node = profile_load(path, err, sizeof err);
    if (node == NULL) {
        mock_set_error("%s", err);
        return -1;
    }
    if (request != S.profile_request) {
        snprintf(S.profile_request, sizeof S.profile_request, "%s", request);
    }
    install(node, keep_handles);
    return 0;
}

static const char *env_profile(void) {
    const char *p = getenv("MOCK_NVML_PROFILE");
    return p != NULL && p[0] != '\0' ? p : "rtx3060";
}

/* Re-reads the profile file when it changed (checked at most every 100 ms). Lock held. */
static void maybe_reload(void) {
    double now = S.call_ms;
    if (S.node == NULL || now - S.last_watch_ms < 100.0) {
        return;
    }
    S.last_watch_ms = now;
    struct stat st;
    if (stat(S.node->path, &st) != 0) {
        return; /* a file being replaced; keep the node */
    }
    if (st.st_mtim.tv_sec == S.watched_mtime.tv_sec && st.st_mtim.tv_nsec == S.watched_mtime.tv_nsec
        && st.st_size == S.watched_size && st.st_ino == S.watched_ino) {
        return;
    }
    S.watched_mtime = st.st_mtim;
    S.watched_size = st.st_size;
    S.watched_ino = st.st_ino;
    char err[MOCK_ERR_LEN];
    mock_node *node = profile_load(S.node->path, err, sizeof err);
    if (node == NULL) {
        mock_warn("keeping the previous node, the changed profile is broken: %s", err);
        return;
    }
    install(node, 1);
}

/* ---- entry and failures --------------------------------------------------------------------------------- */

static void recompute_fail_active(void) {
    S.fail_active = 0;
    for (int i = 0; i < FN_COUNT; i++) {
        if (S.fail[i].times != 0) {
            S.fail_active = 1;
            return;
        }
    }
}

nvmlReturn_t mock_enter(int fn, int needs_init) {
    lock_state();
    S.call_ms = mock_monotonic_ms();
    if (S.fail_active && S.fail[fn].times != 0) {
        nvmlReturn_t r = (nvmlReturn_t) S.fail[fn].ret;
        if (S.fail[fn].times > 0 && --S.fail[fn].times == 0) {
            recompute_fail_active();
        }
        return r;
    }
    if (needs_init && S.init_count == 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (needs_init && S.node == NULL) {
        return NVML_ERROR_UNKNOWN; /* mockNvmlReset could not load the environment's profile */
    }
    if (S.init_count > 0) {
        maybe_reload();
    }
    return NVML_SUCCESS;
}

void mock_leave(void) {
    unlock_state();
}

/* ---- init / shutdown ------------------------------------------------------------------------------------ */

static nvmlReturn_t do_init(unsigned flags) {
    if (S.node == NULL) {
        if (load_request(env_profile(), 0) != 0) {
            char why[MOCK_ERR_LEN];
            memcpy(why, S.last_error, sizeof why);
            mock_warn("cannot load profile: %s", why);
            return NVML_ERROR_UNKNOWN;
        }
    }
    if (S.init_count == 0 || !(flags & NVML_INIT_FLAG_NO_GPUS)) {
        S.no_gpus = (flags & NVML_INIT_FLAG_NO_GPUS) != 0;
    }
    S.init_count++;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void) {
    nvmlReturn_t r = mock_enter(FN_nvmlInit_v2, 0);
    if (r == NVML_SUCCESS) {
        r = do_init(0);
    }
    mock_leave();
    return r;
}

nvmlReturn_t nvmlInit(void) {
    nvmlReturn_t r = mock_enter(FN_nvmlInit, 0);
    if (r == NVML_SUCCESS) {
        r = do_init(0);
    }
    mock_leave();
    return r;
}

nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
    nvmlReturn_t r = mock_enter(FN_nvmlInitWithFlags, 0);
    if (r == NVML_SUCCESS) {
        r = do_init(flags);
    }
    mock_leave();
    return r;
}

static nvmlReturn_t do_shutdown(void) {
    S.init_count--;
    if (S.init_count == 0) {
        S.no_gpus = 0;
        events_free_all(0);
        pthread_cond_broadcast(&S.events_changed);
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
    GUARDED(nvmlShutdown, do_shutdown());
}

const char *nvmlErrorString(nvmlReturn_t result) {
    switch ((int) result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED: return "Already Initialized";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER: return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_IRQ_ISSUE: return "Interrupt Request Issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED: return "GPU requires reset";
    case NVML_ERROR_OPERATING_SYSTEM: return "GPU access blocked by the operating system";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "Driver/library version mismatch";
    case NVML_ERROR_IN_USE: return "In use by another client";
    case NVML_ERROR_MEMORY: return "Insufficient Memory";
    case NVML_ERROR_NO_DATA: return "No data";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED: return "vGPU ECC not supported";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Insufficient Resources";
    case NVML_ERROR_FREQ_NOT_SUPPORTED: return "Frequency not supported";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
    case NVML_ERROR_DEPRECATED: return "Deprecated";
    case NVML_ERROR_NOT_READY: return "Not ready";
    case NVML_ERROR_GPU_NOT_FOUND: return "GPU not found";
    case NVML_ERROR_INVALID_STATE: return "Invalid state";
    case NVML_ERROR_UNKNOWN: return "Unknown Error";
    default: return "Unknown Error";
    }
}

/* ---- control symbols ------------------------------------------------------------------------------------ */

int mockNvmlSetProfile(const char *nameOrPath) {
    lock_state();
    int rc = -1;
    if (nameOrPath == NULL) {
        mock_set_error("mockNvmlSetProfile: the profile name was NULL but it must name a profile or a .json file");
    } else {
        char request[4096];
        snprintf(request, sizeof request, "%s", nameOrPath);
        rc = load_request(request, 0);
    }
    unlock_state();
    return rc;
}

const char *mockNvmlLastError(void) {
    static _Thread_local char copy[4096]; /* callers may map it as 4096 bytes */
    lock_state();
    snprintf(copy, sizeof copy, "%s", S.last_error);
    unlock_state();
    return copy;
}

static int inject(const char *uuid, unsigned long long type, unsigned long long data, int double_bit,
                  const char *what) {
    lock_state();
    int rc = -1;
    if (S.node == NULL && load_request(env_profile(), 0) != 0) {
        unlock_state();
        return -1;
    }
    int mig;
    int g = uuid != NULL ? find_gpu_by_uuid(uuid, &mig) : -1;
    if (g < 0) {
        mock_set_error("%s: the uuid was '%.120s' but it names no GPU or MIG device of the simulated node (%s)", what,
                       uuid ? uuid : "(null)", S.node->path);
    } else if (type != nvmlEventTypeXidCriticalError && !S.node->gpus[g].has_ecc) {
        mock_set_error("%s: GPU %s has no ECC in profile %s (\"ecc\": null)", what, S.node->gpus[g].uuid,
                       S.node->path);
    } else {
        mock_event e;
        memset(&e, 0, sizeof e);
        snprintf(e.uuid, sizeof e.uuid, "%s", S.node->gpus[g].uuid);
        e.type = type;
        e.data = data;
        e.gi = mig >= 0 ? S.node->gpus[g].mig.devices[mig].gi_id : 0xFFFFFFFFu;
        e.ci = mig >= 0 ? S.node->gpus[g].mig.devices[mig].ci_id : 0xFFFFFFFFu;
        if (type != nvmlEventTypeXidCriticalError) {
            ecc_apply(g, double_bit);
        }
        events_deliver(&e);
        rc = 0;
    }
    unlock_state();
    return rc;
}

int mockNvmlInjectXid(const char *uuid, unsigned long long xid) {
    return inject(uuid, nvmlEventTypeXidCriticalError, xid, 0, "mockNvmlInjectXid");
}

int mockNvmlParseEventLine(const char *line) {
    if (line == NULL) {
        lock_state();
        mock_set_error("mockNvmlParseEventLine: the line was NULL");
        unlock_state();
        return -1;
    }
    mock_event e;
    int is_double;
    char why[200];
    int rc = events_parse_line(line, &e, &is_double, why, sizeof why);
    if (rc < 0) {
        lock_state();
        mock_set_error("mockNvmlParseEventLine: %s", why);
        unlock_state();
    }
    return rc;
}

int mockNvmlInjectEcc(const char *uuid, int doubleBit) {
    return inject(uuid, doubleBit ? nvmlEventTypeDoubleBitEccError : nvmlEventTypeSingleBitEccError, 0,
                  doubleBit != 0, "mockNvmlInjectEcc");
}

static void set_walking(int walking) {
    if (walking == S.walking) {
        return;
    }
    double now = mock_monotonic_ms();
    if (walking) {
        S.walk_origin_ms = now - S.walk_frozen_ms;
    } else {
        S.walk_frozen_ms = now - S.walk_origin_ms;
    }
    S.walking = walking;
}

int mockNvmlSetWalk(int enabled) {
    lock_state();
    int rc = 0;
    if (enabled != 0 && enabled != 1) {
        mock_set_error("mockNvmlSetWalk: enabled was '%d' but it must be 0 or 1", enabled);
        rc = -1;
    } else {
        S.walk_override = enabled;
        set_walking(enabled);
    }
    unlock_state();
    return rc;
}

int mockNvmlFailNext(const char *function, int nvmlReturn, int times) {
    lock_state();
    int rc = -1;
    int fn = -1;
    for (int i = 0; function != NULL && i < FN_COUNT; i++) {
        if (strcmp(FN_NAMES[i], function) == 0) {
            fn = i;
        }
    }
    if (fn < 0) {
        mock_set_error("mockNvmlFailNext: function was '%.120s' but it must be an NVML function of the mock that "
                       "returns nvmlReturn_t (e.g. nvmlInit_v2, nvmlDeviceGetUUID)",
                       function ? function : "(null)");
    } else if (nvmlReturn == NVML_SUCCESS) {
        mock_set_error("mockNvmlFailNext: nvmlReturn was '0' but it must be an NVML error code");
    } else {
        S.fail[fn].ret = nvmlReturn;
        S.fail[fn].times = times;
        recompute_fail_active();
        rc = 0;
    }
    unlock_state();
    return rc;
}

void mockNvmlClearFailures(void) {
    lock_state();
    memset(S.fail, 0, sizeof S.fail);
    S.fail_active = 0;
    unlock_state();
}

void mockNvmlReset(void) {
    lock_state();
    memset(S.fail, 0, sizeof S.fail);
    S.fail_active = 0;
    S.walk_override = -1;
    S.last_error[0] = '\0';
    if (load_request(env_profile(), 0) != 0) {
        /* no node: the next nvmlInit fails with this error; handles go stale */
        profile_free(S.node);
        S.node = NULL;
        S.generation++;
    }
    unlock_state();
}

/*
 * The process's exit (or dlclose) runs this while other threads may still be inside the library: a thread of a
 * JVM's exit is not stopped, and one may sleep in nvmlEventSetWait_v2 with the state lock released. As after the
 * last nvmlShutdown of real NVML, every later call answers NVML_ERROR_UNINITIALIZED, and a set with a waiter is
 * only marked freed: the waiter wakes, sees init_count 0 and frees it (freeing it here made the waiter read freed
 * memory and crash the exiting process).
 */
__attribute__((destructor)) static void mock_unload(void) {
    events_watcher_stop();
    pthread_mutex_lock(&S.lock);
    S.init_count = 0;
    events_free_all(0);
    gpm_free_all();
    profile_free(S.node);
    S.node = NULL;
    pthread_mutex_unlock(&S.lock);
}
