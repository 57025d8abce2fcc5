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
 * NVML events: event sets, registrations, nvmlEventSetWait_v2 and the MOCK_NVML_EVENTS file. Each set reads the
 * file from its own offset (the file's size when the set was created), so every appended line reaches each set
 * that registered the GPU once. A waiting call sleeps on a condition variable, which releases the state lock while
 * it sleeps and is signalled by injected events, nvmlEventSetFree, the last nvmlShutdown and the file's watcher: a
 * thread that inotify wakes when the file is written (started with the first event set, stopped when the library
 * is unloaded), so a line written by another process is delivered as promptly as a driver delivers an XID. The
 * waiter still reads the file every 20 ms (MOCK_NVML_EVENTS_POLL_MS), for file systems without inotify.
 */
#include "mock.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define SET_MAGIC 0x45564E54u /* EVNT */
#define POLL_MS 20
#define MAX_READ (1024 * 1024)

const char *events_file(void) {
    const char *f = getenv("MOCK_NVML_EVENTS");
    return f != NULL && f[0] != '\0' ? f : NULL;
}

/* How often a waiter reads the events file when nothing woke it: POLL_MS, or MOCK_NVML_EVENTS_POLL_MS (tests set it
 * long, to see that the watcher alone delivers). */
static double poll_ms(void) {
    const char *v = getenv("MOCK_NVML_EVENTS_POLL_MS");
    double ms = v != NULL ? atof(v) : 0;
    return ms >= 1 ? ms : POLL_MS;
}

static off_t file_size(const char *path) {
    struct stat st;
    return path != NULL && stat(path, &st) == 0 ? st.st_size : 0;
}

/* ---- the file's watcher --------------------------------------------------------------------------------- */

/* The watcher's state; only the thread that holds the state lock starts it, and only the library's unloading (with
 * the state lock not held: the watcher takes it to signal) stops it. */
static struct {
    int running;
    pthread_t thread;
    int inotify_fd;
    int stop_fd;
    char name[NAME_MAX + 1]; /* the events file's name in its folder */
} watcher = { .inotify_fd = -1, .stop_fd = -1 };

static void *watch_events_file(void *unused) {
    (void) unused;
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    struct pollfd fds[2] = { { .fd = watcher.inotify_fd, .events = POLLIN }, { .fd = watcher.stop_fd, .events = POLLIN } };
    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        if (fds[1].revents != 0) {
            break;
        }
        ssize_t n = read(watcher.inotify_fd, buffer, sizeof buffer);
        if (n <= 0) {
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
                continue;
            }
            break;
        }
        int ours = 0;
        for (char *p = buffer; p < buffer + n;) {
            const struct inotify_event *e = (const struct inotify_event *) p;
            if ((e->mask & IN_Q_OVERFLOW) || (e->len > 0 && strcmp(e->name, watcher.name) == 0)) {
                ours = 1;
            }
            p += sizeof *e + e->len;
        }
        if (ours) {
            pthread_mutex_lock(&S.lock);
            pthread_cond_broadcast(&S.events_changed);
            pthread_mutex_unlock(&S.lock);
        }
    }
    return NULL;
}

/* Starts the watcher of the events file, once; without one (no file named, no inotify) waiters poll the file. */
static void start_watcher(void) {
    const char *file = events_file();
    if (watcher.running || file == NULL) {
        return;
    }
    char folder[PATH_MAX];
    const char *slash = strrchr(file, '/');
    const char *name = slash == NULL ? file : slash + 1;
    if (strlen(name) == 0 || strlen(name) > NAME_MAX) {
        return;
    }
    if (slash == NULL) {
        snprintf(folder, sizeof folder, ".");
    } else if (slash == file) {
        snprintf(folder, sizeof folder, "/");
    } else if ((size_t) (slash - file) < sizeof folder) {
        snprintf(folder, sizeof folder, "%.*s", (int) (slash - file), file);
    } else {
        return;
    }
    int inotify_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    int stop_fd = eventfd(0, EFD_CLOEXEC);
    /* the folder, not the file: the file need not exist yet, and may be replaced */
    if (inotify_fd < 0 || stop_fd < 0
            || inotify_add_watch(inotify_fd, folder, IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO) < 0) {
        mock_warn("cannot watch %s for events (%s); waiters read it every %d ms", file, strerror(errno), POLL_MS);
        if (inotify_fd >= 0) close(inotify_fd);
        if (stop_fd >= 0) close(stop_fd);
        return;
    }
    snprintf(watcher.name, sizeof watcher.name, "%s", name);
    watcher.inotify_fd = inotify_fd;
    watcher.stop_fd = stop_fd;
    /* the thread takes no signal: the process's handlers (a JVM's SIGTERM, SIGHUP) run on the process's own threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int started = pthread_create(&watcher.thread, NULL, watch_events_file, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started != 0) {
        mock_warn("cannot start the watcher of %s (%s); waiters read it every %d ms", file, strerror(started), POLL_MS);
        close(inotify_fd);
        close(stop_fd);
        watcher.inotify_fd = watcher.stop_fd = -1;
        return;
    }
    watcher.running = 1;
}

void events_watcher_stop(void) {
    if (!watcher.running) {
        return;
    }
    uint64_t one = 1;
    if (write(watcher.stop_fd, &one, sizeof one) != (ssize_t) sizeof one) {
        mock_warn("cannot stop the watcher of the events file (%s)", strerror(errno));
        return; /* never joined; the process is ending or the library stays loaded */
    }
    pthread_join(watcher.thread, NULL);
    close(watcher.inotify_fd);
    close(watcher.stop_fd);
    watcher.inotify_fd = watcher.stop_fd = -1;
    watcher.running = 0;
}

/* ---- parsing -------------------------------------------------------------------------------------------- */

/* The next blank-separated field of *p into out: 1, 0 at the end of the line or a comment, -1 when the field does
 * not fit in out (it is never cut short, which could make "0000...05" read as 0). */
static int next_token(const char **p, char *out, size_t size) {
    while (**p == ' ' || **p == '\t' || **p == '\r') {
        (*p)++;
    }
    size_t n = 0;
    int fits = 1;
    while (**p != '\0' && **p != ' ' && **p != '\t' && **p != '\r' && **p != '#') {
        if (n + 1 < size) {
            out[n++] = **p;
        } else {
            fits = 0;
        }
        (*p)++;
    }
    out[n] = '\0';
    return n == 0 ? 0 : fits ? 1 : -1;
}

/* 1: an event (out filled), 0: blank/comment, -1: malformed (why filled). out->uuid is the line's UUID. */
int events_parse_line(const char *line, mock_event *out, int *is_double, char *why, size_t why_size) {
    const char *p = line;
    char kind[16], uuid[MOCK_UUID_LEN], arg[64], extra[8];
    memset(out, 0, sizeof *out);
    *is_double = 0;
    int k = next_token(&p, kind, sizeof kind);
    if (k == 0) {
        return 0;
    }
    int u = next_token(&p, uuid, sizeof uuid);
    int a = u == 0 ? 0 : next_token(&p, arg, sizeof arg);
    if (k < 0 || u < 0 || a < 0) {
        snprintf(why, why_size, "has a field longer than any 'xid <uuid> <code>' or 'ecc <uuid> sbe|dbe' holds");
        return -1;
    }
    if (u == 0 || a == 0) {
        snprintf(why, why_size, "expected 'xid <uuid> <code>' or 'ecc <uuid> sbe|dbe'");
        return -1;
    }
    if (next_token(&p, extra, sizeof extra) != 0) {
        snprintf(why, why_size, "has more than three fields");
        return -1;
    }
    if (!profile_valid_uuid(uuid, "GPU") && !profile_valid_uuid(uuid, "MIG")) {
        snprintf(why, why_size, "the uuid '%.60s' is not GPU-/MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", uuid);
        return -1;
    }
    snprintf(out->uuid, sizeof out->uuid, "%s", uuid);
    if (strcmp(kind, "xid") == 0) {
        char *end;
        errno = 0;
        unsigned long long code = strtoull(arg, &end, 0);
        if (errno != 0 || *end != '\0' || arg[0] == '-' || end == arg) {
            snprintf(why, why_size, "the xid '%s' is not a non-negative number", arg);
            return -1;
        }
        out->type = nvmlEventTypeXidCriticalError;
        out->data = code;
        return 1;
    }
    if (strcmp(kind, "ecc") == 0) {
        if (strcmp(arg, "sbe") == 0) {
            out->type = nvmlEventTypeSingleBitEccError;
        } else if (strcmp(arg, "dbe") == 0) {
            out->type = nvmlEventTypeDoubleBitEccError;
            *is_double = 1;
        } else {
            snprintf(why, why_size, "the ECC kind '%s' is not sbe or dbe", arg);
            return -1;
        }
        return 1;
    }
    snprintf(why, why_size, "the event kind '%s' is not xid or ecc", kind);
    return -1;
}

/* Maps a parsed line to its GPU: -1 when the node has no such device. Sets gi/ci and the parent UUID. */
static int resolve_event(mock_event *e, const char *file, off_t at, int warn) {
    int mig;
    int g = find_gpu_by_uuid(e->uuid, &mig);
    if (g < 0) {
        if (warn) {
            mock_warn("%s byte %lld: no GPU or MIG device %s on the simulated node, line skipped", file, (long long) at,
                      e->uuid);
        }
        return -1;
    }
    const mock_gpu *gpu = &S.node->gpus[g];
    e->gi = mig >= 0 ? gpu->mig.devices[mig].gi_id : 0xFFFFFFFFu;
    e->ci = mig >= 0 ? gpu->mig.devices[mig].ci_id : 0xFFFFFFFFu;
    snprintf(e->uuid, sizeof e->uuid, "%s", gpu->uuid);
    return g;
}

typedef void (*line_handler)(void *arg, mock_event *event, int gpu, int is_double);

/* Reads the complete lines appended since *offset and hands each parsed event to handler. */
static void read_lines(off_t *offset, line_handler handler, void *arg) {
    const char *file = events_file();
    if (file == NULL || S.node == NULL) {
        return;
    }
    FILE *f = fopen(file, "rb");
    if (f == NULL) {
        return;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return;
    }
    if (st.st_size < *offset) {
        *offset = 0; /* truncated or replaced */
        if (st.st_size < S.warned_upto) {
            S.warned_upto = 0;
        }
    }
    if (st.st_size == *offset || fseeko(f, *offset, SEEK_SET) != 0) {
        fclose(f);
        return;
    }
    off_t want = st.st_size - *offset;
    size_t size = want > MAX_READ ? MAX_READ : (size_t) want;
    char *buf = malloc(size + 1);
    if (buf == NULL) {
        fclose(f);
        return;
    }
    size_t got = fread(buf, 1, size, f);
    fclose(f);
    buf[got] = '\0';
    size_t start = 0;
    for (size_t i = 0; i < got; i++) {
        if (buf[i] != '\n') {
            continue;
        }
        buf[i] = '\0';
        off_t at = *offset + (off_t) start;
        int warn = at >= S.warned_upto;
        mock_event e;
        int is_double;
        char why[200];
        int rc = strlen(buf + start) != i - start ? -1 : events_parse_line(buf + start, &e, &is_double, why, sizeof why);
        if (rc < 0 && strlen(buf + start) != i - start) {
            snprintf(why, sizeof why, "contains a NUL byte");
        }
        if (rc < 0 && warn) {
            mock_warn("%s byte %lld: %s, line skipped", file, (long long) at, why);
        }
        if (rc > 0) {
            int g = resolve_event(&e, file, at, warn);
            if (g >= 0) {
                handler(arg, &e, g, is_double);
            }
        }
        if (warn) {
            S.warned_upto = *offset + (off_t) i + 1;
        }
        start = i + 1;
    }
    if (start == 0 && got == MAX_READ) {
        mock_warn("%s byte %lld: a line longer than %d bytes, skipped", file, (long long) *offset, MAX_READ);
        start = got;
    }
    *offset += (off_t) start;
    free(buf);
}

/* ---- ECC counters from the file ------------------------------------------------------------------------- */

void ecc_apply(int gpu, int double_bit) {
    mock_gpu *g = &S.node->gpus[gpu];
    if (!g->has_ecc) {
        return;
    }
    g->ecc[double_bit ? 1 : 0][0].injected++;
    g->ecc[double_bit ? 1 : 0][1].injected++;
}

static void count_ecc(void *arg, mock_event *e, int gpu, int is_double) {
    (void) arg;
    if (e->type != nvmlEventTypeXidCriticalError) {
        ecc_apply(gpu, is_double);
    }
}

void events_reset_global_offset(void) {
    S.ecc_offset = file_size(events_file());
}

void events_scan_global(void) {
    read_lines(&S.ecc_offset, count_ecc, NULL);
}

/* ---- sets ----------------------------------------------------------------------------------------------- */

static event_set *find_set(nvmlEventSet_t handle) {
    for (event_set *s = S.sets; s != NULL; s = s->next) {
        if ((void *) s == (void *) handle && s->magic == SET_MAGIC) {
            return s;
        }
    }
    return NULL;
}

static void unlink_set(event_set *set) {
    for (event_set **p = &S.sets; *p != NULL; p = &(*p)->next) {
        if (*p == set) {
            *p = set->next;
            return;
        }
    }
}

static void destroy_set(event_set *set) {
    set->magic = 0;
    free(set);
}

static void enqueue(event_set *set, const mock_event *e) {
    if (set->count == MOCK_EVENT_QUEUE) {
        mock_warn("an event set holds %d undelivered events; dropped an event for %s", MOCK_EVENT_QUEUE, e->uuid);
        return;
    }
    set->queue[(set->head + set->count) % MOCK_EVENT_QUEUE] = *e;
    set->count++;
}

static void offer(event_set *set, const mock_event *e) {
    for (int i = 0; i < set->registration_count; i++) {
        if (strcasecmp(set->registrations[i].uuid, e->uuid) == 0 && (set->registrations[i].mask & e->type)) {
            enqueue(set, e);
            return;
        }
    }
}

static void offer_line(void *arg, mock_event *e, int gpu, int is_double) {
    (void) gpu;
    (void) is_double;
    offer((event_set *) arg, e);
}

static void poll_set(event_set *set) {
    read_lines(&set->offset, offer_line, set);
}

void events_deliver(const mock_event *event) {
    for (event_set *s = S.sets; s != NULL; s = s->next) {
        offer(s, event);
    }
    pthread_cond_broadcast(&S.events_changed);
}

void events_free_all(int force) {
    event_set *s = S.sets;
    S.sets = NULL;
    while (s != NULL) {
        event_set *next = s->next;
        if (force || s->waiters == 0) {
            destroy_set(s);
        } else {
            s->freed = 1; /* the last waiter frees it */
        }
        s = next;
    }
    pthread_cond_broadcast(&S.events_changed);
}

static nvmlReturn_t set_create(nvmlEventSet_t *handle) {

    if (handle == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    event_set *set = calloc(1, sizeof *set);
    if (set == NULL) {
        return NVML_ERROR_MEMORY;
    }
    set->magic = SET_MAGIC;
    start_watcher();
    set->offset = file_size(events_file());
    set->next = S.sets;
    S.sets = set;
    *handle = (nvmlEventSet_t) set;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
    GUARDED(nvmlEventSetCreate, set_create(set));
}

static nvmlReturn_t supported_events(nvmlDevice_t device, unsigned long long *types) {
    mock_gpu *g;
    nvmlReturn_t r = resolve_gpu(device, &g);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (types == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *types = g->events;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes) {
    GUARDED(nvmlDeviceGetSupportedEventTypes, supported_events(device, eventTypes));
}

static nvmlReturn_t register_events(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t handle) {
    mock_gpu *g;
    mig_device *m;
    nvmlReturn_t r = resolve_device(device, &g, &m);
    if (r != NVML_SUCCESS) {
        return r;
    }
    event_set *set = find_set(handle);
    if (set == NULL || (types & ~(unsigned long long) nvmlEventTypeAll) != 0) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (m != NULL || (types & ~g->events) != 0) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    poll_set(set); /* lines written before this registration are not events for this device */
    for (int i = 0; i < set->registration_count; i++) {
        if (strcasecmp(set->registrations[i].uuid, g->uuid) == 0) {
            set->registrations[i].mask |= types;
            return NVML_SUCCESS;
        }
    }
    if (set->registration_count == MOCK_MAX_GPUS) {
        return NVML_ERROR_INSUFFICIENT_RESOURCES;
    }
    snprintf(set->registrations[set->registration_count].uuid, MOCK_UUID_LEN, "%s", g->uuid);
    set->registrations[set->registration_count].mask = types;
    set->registration_count++;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set) {
    GUARDED(nvmlDeviceRegisterEvents, register_events(device, eventTypes, set));
}

static int dequeue(event_set *set, nvmlEventData_t *data) {
    while (set->count > 0) {
        mock_event e = set->queue[set->head];
        set->head = (set->head + 1) % MOCK_EVENT_QUEUE;
        set->count--;
        int mig;
        int g = find_gpu_by_uuid(e.uuid, &mig);
        if (g < 0) {
            continue; /* the node changed under the event */
        }
        data->device = handle_gpu(g);
        data->eventType = e.type;
        data->eventData = e.data;
        data->gpuInstanceId = e.gi;
        data->computeInstanceId = e.ci;
        return 1;
    }
    return 0;
}

static int registered_gpu_lost(const event_set *set) {
    for (int i = 0; i < set->registration_count; i++) {
        int mig;
        int g = find_gpu_by_uuid(set->registrations[i].uuid, &mig);
        if (g >= 0 && S.node->gpus[g].lost) {
            return 1;
        }
    }
    return 0;
}

static void add_ms(struct timespec *ts, double ms) {
    long long ns = ts->tv_nsec + (long long) (ms * 1e6);
    ts->tv_sec += (time_t) (ns / 1000000000LL);
    ts->tv_nsec = (long) (ns % 1000000000LL);
}

static int before(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static nvmlReturn_t set_wait(nvmlEventSet_t handle, nvmlEventData_t *data, unsigned timeout_ms) {
    event_set *set = find_set(handle);
    if (set == NULL || data == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    add_ms(&deadline, (double) timeout_ms);
    nvmlReturn_t r;
    set->waiters++;
    for (;;) {
        if (S.init_count == 0) {
            r = NVML_ERROR_UNINITIALIZED;
            break;
        }
        if (set->freed) {
            r = NVML_ERROR_INVALID_ARGUMENT;
            break;
        }
        if (S.node == NULL) {
            r = NVML_ERROR_UNKNOWN;
            break;
        }
        poll_set(set);
        if (dequeue(set, data)) {
            r = NVML_SUCCESS;
            break;
        }
        if (registered_gpu_lost(set)) {
            r = NVML_ERROR_GPU_IS_LOST;
            break;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!before(&now, &deadline)) {
            r = NVML_ERROR_TIMEOUT;
            break;
        }
        struct timespec until = now;
        add_ms(&until, poll_ms());
        if (before(&deadline, &until)) {
            until = deadline;
        }
        /* releases the state lock while sleeping */
        pthread_cond_timedwait(&S.events_changed, &S.lock, &until);
    }
    set->waiters--;
    if (set->freed && set->waiters == 0) {
        destroy_set(set);
    }
    return r;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
    GUARDED(nvmlEventSetWait_v2, set_wait(set, data, timeoutms));
}

/* The event data of the unversioned nvmlEventSetWait: no GPU/compute instance ids. */
typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;
} legacy_event_data;

static nvmlReturn_t set_wait_legacy(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms) {
    if (data == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlEventData_t full;
    nvmlReturn_t r = set_wait(set, &full, timeout_ms);
    if (r == NVML_SUCCESS) {
        legacy_event_data legacy = { full.device, full.eventType, full.eventData };
        memcpy((void *) data, &legacy, sizeof legacy);
    }
    return r;
}

nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
    GUARDED(nvmlEventSetWait, set_wait_legacy(set, data, timeoutms));
}

static nvmlReturn_t set_free(nvmlEventSet_t handle) {
    event_set *set = find_set(handle);
    if (set == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    unlink_set(set);
    if (set->waiters == 0) {
        destroy_set(set);
    } else {
        set->freed = 1;
        pthread_cond_broadcast(&S.events_changed);
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
    GUARDED(nvmlEventSetFree, set_free(set));
}
