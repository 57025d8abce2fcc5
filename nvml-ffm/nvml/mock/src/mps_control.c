/*
 * A fake nvidia-cuda-mps-control for machines without a GPU: the MPS control daemon and its command-line client,
 * as NVIDIA's k8s-device-plugin mps-control-daemon and kgpu drive them. It runs no MPS server and touches no GPU;
 * it keeps the daemon's default settings, answers the get_* commands with them, and records every command.
 * Built by ../build next to the mock libnvidia-ml.so.1 (not part of the library). See ../README.md.
 *
 *   nvidia-cuda-mps-control -d   start the daemon in the background: the call returns (0) once the daemon's control
 *                                socket accepts connections, so a client started right after it is answered
 *   nvidia-cuda-mps-control -f   run the daemon in the foreground (its log lines also go to stdout)
 *   nvidia-cuda-mps-control      the client: reads commands from stdin, one a line (the last line needs no newline),
 *                                sends each to the daemon and prints the answer on stdout
 *
 * Environment, as the real binary's: CUDA_MPS_PIPE_DIRECTORY (default /tmp/nvidia-mps) holds the control socket
 * `control` and `nvidia-cuda-mps-control.pid`; CUDA_MPS_LOG_DIRECTORY (default /var/log/nvidia-mps) holds
 * `control.log`; CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, read by the daemon at start, is the first default thread
 * percentage. Only the fake reads MOCK_MPS_COMMAND_LOG: a file the daemon appends each command it receives to (one
 * a line), which outlives the log directory (NVIDIA's daemon deletes that on stop).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PROG "nvidia-cuda-mps-control"
#define PID_FILE "nvidia-cuda-mps-control.pid"
#define MAX_LINE 4096
#define MAX_LIMITS 1024
/* a client that connects and then says nothing is dropped after this long, so it cannot block the next one */
#define CLIENT_TIMEOUT_S 30

static char pipe_dir[PATH_MAX];
static char log_dir[PATH_MAX];
static char socket_path[sizeof(((struct sockaddr_un *) 0)->sun_path)];
static char pid_path[PATH_MAX + 64];
static char log_path[PATH_MAX + 64];
static FILE *log_file;
static FILE *command_log;
static int echo_log; /* -f: log lines to stdout too */
static int listen_fd = -1;
static volatile sig_atomic_t stop_signal;
static sigset_t wait_mask; /* the signal mask while waiting for a client: SIGTERM and SIGINT let in */

/* the daemon's defaults, as set_* commands leave them */
static double thread_percentage = 100.0;
static struct {
    char device[128];
    unsigned long long bytes;
} limits[MAX_LIMITS];
static int limit_count;

/* ---- small helpers -------------------------------------------------------------------------------------------- */

static const char *env_or(const char *name, const char *fallback) {
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? v : fallback;
}

/* mkdir -p, mode 0755 for what it creates */
static int make_dirs(const char *path) {
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int) sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                return -1;
            }
            *p = c;
            if (c == '\0') {
                break;
            }
        }
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* one control.log line, as the real daemon writes them: [2024-06-10 15:16:40.777 Control 111377] text */
static void log_line(const char *fmt, ...) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    char text[MAX_LINE + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    FILE *outs[2] = { log_file, echo_log ? stdout : NULL };
    for (int i = 0; i < 2; i++) {
        if (outs[i] != NULL) {
            fprintf(outs[i], "[%s.%03ld Control %5ld] %s\n", stamp, (long) (tv.tv_usec / 1000), (long) getpid(), text);
            fflush(outs[i]);
        }
    }
}

static int write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        buf += n;
        len -= (size_t) n;
    }
    return 0;
}

static int socket_address(struct sockaddr_un *addr) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    memcpy(addr->sun_path, socket_path, strlen(socket_path) + 1);
    return 0;
}

/* a connected socket to a running daemon's control socket, or -1 (errno set) */
static int connect_daemon(void) {
    struct sockaddr_un addr;
    socket_address(&addr);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (connect(fd, (struct sockaddr *) &addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static int set_paths(void) {
    if (snprintf(pipe_dir, sizeof pipe_dir, "%s", env_or("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")) >= (int) sizeof pipe_dir ||
        snprintf(log_dir, sizeof log_dir, "%s", env_or("CUDA_MPS_LOG_DIRECTORY", "/var/log/nvidia-mps")) >= (int) sizeof log_dir) {
        fprintf(stderr, PROG ": CUDA_MPS_PIPE_DIRECTORY or CUDA_MPS_LOG_DIRECTORY is longer than %d bytes\n", PATH_MAX - 1);
        return -1;
    }
    if (snprintf(socket_path, sizeof socket_path, "%s/control", pipe_dir) >= (int) sizeof socket_path) {
        fprintf(stderr, PROG ": CUDA_MPS_PIPE_DIRECTORY was '%s' but the socket path '%s/control' must be shorter than %zu "
                        "bytes\n", pipe_dir, pipe_dir, sizeof socket_path);
        return -1;
    }
    snprintf(pid_path, sizeof pid_path, "%s/" PID_FILE, pipe_dir);
    snprintf(log_path, sizeof log_path, "%s/control.log", log_dir);
    return 0;
}

/* ---- the commands --------------------------------------------------------------------------------------------- */

/* "1024M", "2G", "512MB", "1.5G", "4096" (MiB) -> bytes; -1 when it does not parse */
static int parse_size(const char *s, unsigned long long *bytes) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || v < 0) {
        return -1;
    }
    double unit = 1024.0 * 1024.0; /* a bare number is MiB */
    switch (toupper((unsigned char) *end)) {
    case '\0': break;
    case 'K': unit = 1024.0; end++; break;
    case 'M': unit = 1024.0 * 1024.0; end++; break;
    case 'G': unit = 1024.0 * 1024.0 * 1024.0; end++; break;
    case 'T': unit = 1024.0 * 1024.0 * 1024.0 * 1024.0; end++; break;
    default: return -1;
    }
    if (toupper((unsigned char) *end) == 'B') {
        end++;
    }
    if (*end != '\0' || v * unit > 1.8e19) {
        return -1;
    }
    *bytes = (unsigned long long) (v * unit);
    return 0;
}

static int parse_percentage(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !(v > 0 && v <= 100)) {
        return -1;
    }
    *out = v;
    return 0;
}

/* splits line into at most max words (in place); returns the count */
static int split(char *line, char **words, int max) {
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(line, " \t", &save); w != NULL && n < max; w = strtok_r(NULL, " \t", &save)) {
        words[n++] = w;
    }
    return n;
}

/* runs one command; the answer (possibly empty) goes to out. Returns 1 for quit. */
static int run_command(const char *command, char *out, size_t outlen) {
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", command);
    char *w[8];
    int n = split(buf, w, 8);
    out[0] = '\0';
    if (n == 0) {
        return 0;
    }
    if (strcmp(w[0], "quit") == 0) {
        /* quit [-t <seconds>]: no server runs, so there is nothing to wait for */
        return 1;
    }
    if (strcmp(w[0], "get_default_active_thread_percentage") == 0 && n == 1) {
        snprintf(out, outlen, "%.1f\n", thread_percentage);
    } else if (strcmp(w[0], "set_default_active_thread_percentage") == 0 && n == 2) {
        double v;
        if (parse_percentage(w[1], &v) != 0) {
            snprintf(out, outlen, "Invalid value '%s': the active thread percentage must be a number in (0, 100]\n", w[1]);
        } else {
            thread_percentage = v;
            snprintf(out, outlen, "%.1f\n", thread_percentage);
        }
    } else if (strcmp(w[0], "set_default_device_pinned_mem_limit") == 0 && n == 3) {
        unsigned long long bytes;
        if (strlen(w[1]) >= sizeof limits[0].device) {
            snprintf(out, outlen, "Invalid device '%s'\n", w[1]);
        } else if (parse_size(w[2], &bytes) != 0) {
            snprintf(out, outlen, "Invalid value '%s': the limit must be a size such as 1024M or 2G\n", w[2]);
        } else {
            int i = 0;
            while (i < limit_count && strcmp(limits[i].device, w[1]) != 0) {
                i++;
            }
            if (i == MAX_LIMITS) {
                snprintf(out, outlen, "Too many devices (at most %d)\n", MAX_LIMITS);
            } else {
                snprintf(limits[i].device, sizeof limits[i].device, "%s", w[1]);
                limits[i].bytes = bytes;
                if (i == limit_count) {
                    limit_count++;
                }
            }
        }
    } else if (strcmp(w[0], "get_default_device_pinned_mem_limit") == 0 && n == 2) {
        int i = 0;
        while (i < limit_count && strcmp(limits[i].device, w[1]) != 0) {
            i++;
        }
        if (i == limit_count) {
            snprintf(out, outlen, "No limit set for device %s\n", w[1]);
        } else {
            snprintf(out, outlen, "%lluM\n", limits[i].bytes / (1024ULL * 1024ULL));
        }
    } else if (strcmp(w[0], "get_server_list") == 0 && n == 1) {
        /* no MPS server runs: an empty list */
    } else if (strcmp(w[0], "start_server") == 0) {
        snprintf(out, outlen, "This fake control daemon runs no MPS server\n");
    } else if ((strcmp(w[0], "get_server_status") == 0 || strcmp(w[0], "get_client_list") == 0 ||
                strcmp(w[0], "shutdown_server") == 0 || strcmp(w[0], "set_active_thread_percentage") == 0 ||
                strcmp(w[0], "get_active_thread_percentage") == 0 ||
                strcmp(w[0], "set_device_pinned_mem_limit") == 0 || strcmp(w[0], "terminate_client") == 0) &&
               n >= 2) {
        snprintf(out, outlen, "Server %s not found\n", w[1]);
    } else if (strcmp(w[0], "get_device_client_list") == 0) {
        /* no server, no clients */
    } else {
        snprintf(out, outlen, "Invalid command '%s'\n", command);
    }
    return 0;
}

/* ---- the daemon ----------------------------------------------------------------------------------------------- */

static int compare_int(const void *a, const void *b) {
    return *(const int *) a - *(const int *) b;
}

/* closes [from, to] (to may be INT_MAX) */
static void close_range_of(int from, int to) {
    if (to < from) {
        return;
    }
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned) from, to == INT_MAX ? ~0U : (unsigned) to, 0) == 0) {
        return;
    }
#endif
    long max = sysconf(_SC_OPEN_MAX);
    int last = (int) (max > 0 && max < 65536 ? max : 65536) - 1;
    for (int fd = from; fd <= to && fd <= last; fd++) {
        close(fd);
    }
}

/* closes every descriptor from 3 up but those in keep (a daemon holds nothing its caller may wait on) */
static void close_others(int *keep, int n) {
    qsort(keep, (size_t) n, sizeof keep[0], compare_int);
    int from = 3;
    for (int i = 0; i < n; i++) {
        if (keep[i] >= from) {
            close_range_of(from, keep[i] - 1);
            from = keep[i] + 1;
        }
    }
    close_range_of(from, INT_MAX);
}

static void on_signal(int sig) {
    stop_signal = sig;
}

static void cleanup(void) {
    if (listen_fd >= 0) {
        close(listen_fd);
        listen_fd = -1;
    }
    unlink(socket_path);
    unlink(pid_path);
}

/* reads one line (without its newline) from fd into line; 1 a line, 0 at EOF, -1 on error or timeout */
static int read_line(int fd, char *line, size_t max, char *pending, size_t *pending_len) {
    for (;;) {
        char *nl = memchr(pending, '\n', *pending_len);
        if (nl != NULL) {
            size_t len = (size_t) (nl - pending);
            if (len >= max) {
                len = max - 1;
            }
            memcpy(line, pending, len);
            line[len] = '\0';
            size_t used = (size_t) (nl - pending) + 1;
            memmove(pending, pending + used, *pending_len - used);
            *pending_len -= used;
            return 1;
        }
        if (*pending_len == MAX_LINE) {
            return -1; /* a line longer than any command */
        }
        ssize_t n = read(fd, pending + *pending_len, MAX_LINE - *pending_len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return n == 0 ? 0 : -1;
        }
        *pending_len += (size_t) n;
    }
}

/* serves one client connection; returns 1 when it asked the daemon to quit */
static int serve(int fd) {
    struct timeval tv = { CLIENT_TIMEOUT_S, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    log_line("Accepting connection...");
    log_line("NEW UI");
    char pending[MAX_LINE];
    size_t pending_len = 0;
    char line[MAX_LINE];
    char answer[MAX_LINE + 256];
    int quit = 0;
    int r;
    while (!quit && (r = read_line(fd, line, sizeof line, pending, &pending_len)) == 1) {
        log_line("Cmd:%s", line);
        if (command_log != NULL) {
            fprintf(command_log, "%s\n", line);
            fflush(command_log);
        }
        quit = run_command(line, answer, sizeof answer);
        if (answer[0] != '\0') {
            size_t len = strlen(answer);
            log_line("%.*s", (int) (len - 1), answer);
        }
        /* the answer, then a NUL: the client prints up to it and sends the next command */
        if (write_all(fd, answer, strlen(answer) + 1) != 0) {
            break;
        }
    }
    log_line("UI closed");
    close(fd);
    return quit;
}

static int daemon_loop(void) {
    int quit = 0;
    while (!quit && !stop_signal) {
        struct pollfd p = { listen_fd, POLLIN, 0 };
        int r = ppoll(&p, 1, NULL, &wait_mask);
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            log_line("ppoll failed: %s", strerror(errno));
            return 1;
        }
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        quit = serve(fd);
    }
    if (stop_signal) {
        log_line("Received signal %d, exiting", (int) stop_signal);
    } else {
        log_line("Exit");
    }
    cleanup();
    return 0;
}

/* -d (background) or -f (foreground): set up everything that can fail before the caller is told it started */
static int run_daemon(int background) {
    if (set_paths() != 0) {
        return 1;
    }
    if (make_dirs(pipe_dir) != 0) {
        fprintf(stderr, PROG ": cannot create the pipe directory %s: %s\n", pipe_dir, strerror(errno));
        return 1;
    }
    if (make_dirs(log_dir) != 0) {
        fprintf(stderr, PROG ": cannot create the log directory %s: %s\n", log_dir, strerror(errno));
        return 1;
    }
    int existing = connect_daemon();
    if (existing >= 0) {
        close(existing);
        fprintf(stderr, PROG ": an MPS control daemon is already running on %s\n", socket_path);
        return 1;
    }
    unlink(socket_path); /* a stale socket of a daemon that is gone */
    const char *tp = getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    if (tp != NULL && *tp != '\0' && parse_percentage(tp, &thread_percentage) != 0) {
        fprintf(stderr, PROG ": CUDA_MPS_ACTIVE_THREAD_PERCENTAGE was '%s' but it must be a number in (0, 100]\n", tp);
        return 1;
    }
    log_file = fopen(log_path, "ae");
    if (log_file == NULL) {
        fprintf(stderr, PROG ": cannot open %s: %s\n", log_path, strerror(errno));
        return 1;
    }
    const char *cl = getenv("MOCK_MPS_COMMAND_LOG");
    if (cl != NULL && *cl != '\0') {
        command_log = fopen(cl, "ae");
        if (command_log == NULL) {
            fprintf(stderr, PROG ": MOCK_MPS_COMMAND_LOG was '%s' but it cannot be opened: %s\n", cl, strerror(errno));
            return 1;
        }
    }
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr;
    socket_address(&addr);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *) &addr, sizeof addr) != 0 || listen(listen_fd, 16) != 0) {
        fprintf(stderr, PROG ": cannot listen on %s: %s\n", socket_path, strerror(errno));
        if (listen_fd >= 0) {
            close(listen_fd);
        }
        return 1;
    }
    /* the socket is usable by any client user, as the real daemon's */
    chmod(socket_path, 0777);

    int ready[2] = { -1, -1 };
    if (background) {
        if (pipe2(ready, O_CLOEXEC) != 0) {
            fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
            cleanup();
            return 1;
        }
        fflush(NULL);
        pid_t child = fork();
        if (child < 0) {
            fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
            cleanup();
            return 1;
        }
        if (child > 0) {
            /* the caller returns once the daemon has written its pid file (its socket already listens): the daemon
             * writes "1", or an error message, and closes the pipe */
            close(ready[1]);
            char msg[PATH_MAX + 128];
            size_t got = 0;
            ssize_t n;
            while (got < sizeof msg - 1 && ((n = read(ready[0], msg + got, sizeof msg - 1 - got)) > 0 || (n < 0 && errno == EINTR))) {
                got += n > 0 ? (size_t) n : 0;
            }
            msg[got] = '\0';
            close(ready[0]);
            if (strcmp(msg, "1") == 0) {
                return 0;
            }
            fprintf(stderr, PROG ": the daemon did not start: %s\n", got > 0 ? msg : "it exited without a word");
            return 1;
        }
        close(ready[0]);
        setsid();
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
            dup2(devnull, 2);
            if (devnull > 2) {
                close(devnull);
            }
        }
        int keep[4] = { listen_fd, ready[1], fileno(log_file), command_log != NULL ? fileno(command_log) : listen_fd };
        close_others(keep, 4);
        if (chdir("/") != 0) {
            /* stays where it was; nothing depends on it */
        }
    } else {
        echo_log = 1;
    }

    /* SIGTERM and SIGINT stop the daemon cleanly; they are only let in while it waits for a client (ppoll), so
     * none is lost between a check and the wait */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGINT);
    sigprocmask(SIG_BLOCK, &stops, &wait_mask);

    FILE *pf = fopen(pid_path, "we");
    if (pf == NULL || fprintf(pf, "%ld\n", (long) getpid()) < 0 || fclose(pf) != 0) {
        char msg[PATH_MAX + 128];
        snprintf(msg, sizeof msg, "cannot write %s: %s", pid_path, strerror(errno));
        if (background) {
            ssize_t ignored = write(ready[1], msg, strlen(msg));
            (void) ignored;
        } else {
            fprintf(stderr, PROG ": %s\n", msg);
        }
        cleanup();
        return 1;
    }
    log_line("Starting control daemon using socket %s", socket_path);
    log_line("To connect CUDA applications to this daemon, set env CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
    if (background) {
        ssize_t ignored = write(ready[1], "1", 1);
        (void) ignored;
        close(ready[1]);
    }
    return daemon_loop();
}

/* ---- the client ----------------------------------------------------------------------------------------------- */

static int run_client(void) {
    if (set_paths() != 0) {
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    int fd = connect_daemon();
    if (fd < 0) {
        fprintf(stderr, PROG ": cannot find an MPS control daemon on %s: %s\n", socket_path, strerror(errno));
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int status = 0;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
            line[--len] = '\0';
        }
        if (len == 0) {
            continue;
        }
        if (len >= MAX_LINE - 1 || memchr(line, '\0', (size_t) len) != NULL) {
            fprintf(stderr, PROG ": a command longer than %d bytes (or with a NUL) was not sent\n", MAX_LINE - 2);
            status = 1;
            break;
        }
        line[len] = '\n';
        if (write_all(fd, line, (size_t) len + 1) != 0) {
            fprintf(stderr, PROG ": the connection to the daemon broke: %s\n", strerror(errno));
            status = 1;
            break;
        }
        /* the answer, up to its NUL */
        for (;;) {
            char buf[512];
            ssize_t n = read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                fprintf(stderr, PROG ": the daemon closed the connection before answering\n");
                status = 1;
                goto done;
            }
            char *nul = memchr(buf, '\0', (size_t) n);
            fwrite(buf, 1, nul != NULL ? (size_t) (nul - buf) : (size_t) n, stdout);
            if (nul != NULL) {
                break; /* one command at a time: nothing follows the NUL */
            }
        }
        fflush(stdout);
        line[len] = '\0';
        char first[16];
        if (sscanf(line, "%15s", first) == 1 && strcmp(first, "quit") == 0) {
            break;
        }
    }
done:
    free(line);
    close(fd);
    return status;
}

int main(int argc, char **argv) {
    if (argc == 1) {
        return run_client();
    }
    if (argc == 2 && strcmp(argv[1], "-d") == 0) {
        return run_daemon(1);
    }
    if (argc == 2 && strcmp(argv[1], "-f") == 0) {
        return run_daemon(0);
    }
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: " PROG " [-d | -f]   (kgpu's fake: see nvml-ffm/nvml/mock/README.md)\n");
        return 0;
    }
    fprintf(stderr, PROG ": unknown option '%s' (use -d, -f, or none for the client)\n", argv[1]);
    return 1;
}
