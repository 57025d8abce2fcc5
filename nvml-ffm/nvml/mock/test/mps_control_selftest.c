/*
 * Selftest of the fake nvidia-cuda-mps-control (src/mps_control.c), run by ../build after the library's selftest.
 * It drives the binary as NVIDIA's mps-control-daemon and plugin do (daemon.go: `-d` with only
 * CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY in the environment, then one client per command, the command
 * written to stdin without a newline): start, set and get the defaults, quit, and nothing left running; also the
 * foreground mode, SIGTERM, a second daemon on the same pipe directory, and the failures.
 * Usage: mps_control_selftest <the fake binary>. Exit status 0 when all pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int checks, failures;
/* MOCK_NVML_SELFTEST_SLACK multiplies every time limit, as in mock_selftest.c: 10 by default, so a limit only tells
 * "it happened" from "it never will" on a machine as loaded as CI's */
static double slack = 10;
static const char *binary;
static char tmpdir[256];

#define CHECK(cond, ...)                                \
    do {                                                \
        checks++;                                       \
        if (!(cond)) {                                  \
            failures++;                                 \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            putchar('\n');                              \
            fflush(stdout);                             \
        }                                               \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1000.0 + (double) ts.tv_nsec / 1e6;
}

static int limit_ms(int quiet_ms) {
    return (int) (quiet_ms * slack);
}

/* what one run of the binary did */
typedef struct {
    int status; /* exit status, 128+signal, or -1 if it ran past the limit (then killed) */
    char out[8192];
    char err[8192];
} result;

/* the environment NVIDIA's daemon.go gives the binary: only the two MPS directories (plus the fake's command log) */
typedef struct {
    char pipe[1024];
    char log[1024];
    char commands[1024];
} mps_env;

static void env_for(mps_env *e, const char *root, const char *resource) {
    snprintf(e->pipe, sizeof e->pipe, "%s/%s/pipe", root, resource);
    snprintf(e->log, sizeof e->log, "%s/%s/log", root, resource);
    snprintf(e->commands, sizeof e->commands, "%s/%s-commands", root, resource);
}

/* runs the binary with args, the environment of e and stdin_text on its stdin (closed after it); collects stdout and
 * stderr until both close and the process exits, within limit */
static result run(const mps_env *e, const char *arg, const char *stdin_text, int limit) {
    result r;
    memset(&r, 0, sizeof r);
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        r.status = -2;
        return r;
    }
    char pipe_var[1100], log_var[1100], cmd_var[1100];
    snprintf(pipe_var, sizeof pipe_var, "CUDA_MPS_PIPE_DIRECTORY=%s", e->pipe);
    snprintf(log_var, sizeof log_var, "CUDA_MPS_LOG_DIRECTORY=%s", e->log);
    snprintf(cmd_var, sizeof cmd_var, "MOCK_MPS_COMMAND_LOG=%s", e->commands);
    char *envp[] = { pipe_var, log_var, cmd_var, NULL };
    char *argv[] = { (char *) binary, (char *) arg, NULL };
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        execve(binary, argv, envp);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    if (stdin_text != NULL) {
        size_t len = strlen(stdin_text);
        signal(SIGPIPE, SIG_IGN);
        ssize_t n = write(in[1], stdin_text, len);
        (void) n;
    }
    close(in[1]);
    size_t got[2] = { 0, 0 };
    char *bufs[2] = { r.out, r.err };
    struct pollfd p[2] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
    double deadline = now_ms() + limit;
    int open_fds = 2;
    while (open_fds > 0) {
        int left = (int) (deadline - now_ms());
        if (left <= 0 || poll(p, 2, left) <= 0) {
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd >= 0 && p[i].revents != 0) {
                ssize_t n = read(p[i].fd, bufs[i] + got[i], sizeof r.out - 1 - got[i]);
                if (n <= 0) {
                    close(p[i].fd);
                    p[i].fd = -1;
                    open_fds--;
                } else {
                    got[i] += (size_t) n;
                }
            }
        }
    }
    int status;
    pid_t w = 0;
    while (now_ms() < deadline && (w = waitpid(pid, &status, WNOHANG)) == 0) {
        struct timespec ts = { 0, 5 * 1000000L }; /* the pipes are closed: it is exiting, so this is short */
        nanosleep(&ts, NULL);
    }
    if (open_fds > 0 || w != pid) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        r.status = -1;
    } else {
        r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    for (int i = 0; i < 2; i++) {
        if (p[i].fd >= 0) {
            close(p[i].fd);
        }
    }
    return r;
}

static result client(const mps_env *e, const char *commands) {
    return run(e, NULL, commands, limit_ms(1000));
}

static char *read_file(const char *path) {
    static char buf[65536];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

static int exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

static pid_t daemon_pid(const mps_env *e) {
    char path[1100];
    snprintf(path, sizeof path, "%s/nvidia-cuda-mps-control.pid", e->pipe);
    return (pid_t) atol(read_file(path));
}

/* waits for the daemon (our orphan, as we are a child subreaper) to exit: its exit status, -1 if still running at
 * the limit. pidfd where the kernel has it (an exit wakes the poll); otherwise waitpid at short intervals. */
static int wait_exit(pid_t pid, int limit) {
    double deadline = now_ms() + limit;
    int status;
#ifdef SYS_pidfd_open
    int fd = (int) syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        struct pollfd p = { fd, POLLIN, 0 };
        int r = poll(&p, 1, limit);
        close(fd);
        if (r <= 0) {
            return -1;
        }
        if (waitpid(pid, &status, 0) != pid) {
            return -1;
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
#endif
    while (now_ms() < deadline) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        if (w < 0) {
            return -1;
        }
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* no process of ours is left (every daemon the tests started has been reaped) */
static int no_children(void) {
    int status;
    return waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

/* ---- tests ---------------------------------------------------------------------------------------------------- */

static void test_no_daemon(void) {
    mps_env e;
    env_for(&e, tmpdir, "none");
    result r = client(&e, "get_default_active_thread_percentage");
    CHECK(r.status == 1, "a client without a daemon exited %d, expected 1", r.status);
    CHECK(r.out[0] == '\0', "a client without a daemon printed '%s'", r.out);
    CHECK(strstr(r.err, "cannot find an MPS control daemon") != NULL, "its stderr was '%s'", r.err);
}

/* NVIDIA's sequence (daemon.go Start, AssertHealthy, Stop) against one daemon */
static void test_nvidia_sequence(void) {
    mps_env e;
    env_for(&e, tmpdir, "nvidia.com/gpu"); /* the resource name holds a '/', as NVIDIA's paths do */
    double t0 = now_ms();
    result r = run(&e, "-d", NULL, limit_ms(1000));
    CHECK(r.status == 0, "-d exited %d (stderr '%s'), expected 0 once the daemon is ready", r.status, r.err);
    CHECK(r.out[0] == '\0' && r.err[0] == '\0', "-d printed '%s' / '%s'", r.out, r.err);
    /* run() saw stdout and stderr close: the daemon keeps none of its caller's pipes (a Java reader would hang) */
    printf("mps selftest: -d returned in %.1f ms\n", now_ms() - t0);
    pid_t pid = daemon_pid(&e);
    CHECK(pid > 1 && kill(pid, 0) == 0, "the pid file names %ld, which is not running", (long) pid);
    char path[1100];
    snprintf(path, sizeof path, "%s/control", e.pipe);
    CHECK(exists(path), "no control socket %s", path);
    snprintf(path, sizeof path, "%s/control.log", e.log);
    CHECK(exists(path), "no %s", path);

    /* right after -d returns, a client is answered (no wait needed) */
    r = client(&e, "get_default_active_thread_percentage");
    CHECK(r.status == 0 && strcmp(r.out, "100.0\n") == 0, "default thread percentage: %d '%s' '%s'", r.status, r.out,
          r.err);
    r = client(&e, "set_default_device_pinned_mem_limit 0 8192M");
    CHECK(r.status == 0 && r.out[0] == '\0', "pinned limit 0: %d '%s' '%s'", r.status, r.out, r.err);
    r = client(&e, "set_default_device_pinned_mem_limit GPU-7c1d5a3e-2b8f-4e60-9a14-c3d2e1f0a581 4G\n");
    CHECK(r.status == 0 && r.out[0] == '\0', "pinned limit by UUID: %d '%s' '%s'", r.status, r.out, r.err);
    r = client(&e, "set_default_active_thread_percentage 10");
    CHECK(r.status == 0 && strcmp(r.out, "10.0\n") == 0, "set thread percentage: %d '%s'", r.status, r.out);

    /* the plugin's health check, and the values set */
    r = client(&e, "get_default_active_thread_percentage");
    CHECK(r.status == 0 && strcmp(r.out, "10.0\n") == 0, "thread percentage after set: %d '%s'", r.status, r.out);
    r = client(&e, "get_default_device_pinned_mem_limit 0\r\n\nget_default_device_pinned_mem_limit "
                   "GPU-7c1d5a3e-2b8f-4e60-9a14-c3d2e1f0a581\nget_default_device_pinned_mem_limit 1\nget_server_list\n");
    CHECK(r.status == 0 && strcmp(r.out, "8192M\n4096M\nNo limit set for device 1\n") == 0,
          "several commands in one session: %d '%s'", r.status, r.out);

    /* rejected commands: a message on stdout, exit status 0 (the daemon was reached), nothing changed */
    r = client(&e, "set_default_active_thread_percentage 0\nset_default_active_thread_percentage abc\n"
                   "set_default_device_pinned_mem_limit 0 lots\nno_such_command 1\n");
    CHECK(r.status == 0 && strstr(r.out, "Invalid value '0'") != NULL && strstr(r.out, "Invalid value 'abc'") != NULL &&
              strstr(r.out, "Invalid value 'lots'") != NULL && strstr(r.out, "Invalid command 'no_such_command 1'") != NULL,
          "rejected commands: %d '%s'", r.status, r.out);
    r = client(&e, "get_default_active_thread_percentage\nget_default_device_pinned_mem_limit 0");
    CHECK(strcmp(r.out, "10.0\n8192M\n") == 0, "values after rejected commands: '%s'", r.out);

    /* a second daemon on the same pipe directory is refused and leaves the first alone */
    r = run(&e, "-d", NULL, limit_ms(1000));
    CHECK(r.status == 1 && strstr(r.err, "already running") != NULL, "second -d: %d '%s'", r.status, r.err);
    CHECK(daemon_pid(&e) == pid && kill(pid, 0) == 0, "the first daemon did not survive a second -d");

    /* quit: the client exits 0, the daemon exits 0 and removes its socket and pid file */
    r = client(&e, "quit");
    CHECK(r.status == 0 && r.out[0] == '\0', "quit: %d '%s' '%s'", r.status, r.out, r.err);
    int st = wait_exit(pid, limit_ms(1000));
    CHECK(st == 0, "the daemon %ld did not exit 0 after quit (%d)", (long) pid, st);
    snprintf(path, sizeof path, "%s/control", e.pipe);
    CHECK(!exists(path), "the control socket is left after quit");
    snprintf(path, sizeof path, "%s/nvidia-cuda-mps-control.pid", e.pipe);
    CHECK(!exists(path), "the pid file is left after quit");
    r = client(&e, "get_default_active_thread_percentage");
    CHECK(r.status == 1, "a client after quit exited %d", r.status);

    /* every command received is recorded, in control.log (the real format) and the command log */
    snprintf(path, sizeof path, "%s/control.log", e.log);
    const char *log = read_file(path);
    CHECK(strstr(log, " Control ") != NULL && strstr(log, "] Starting control daemon using socket ") != NULL,
          "control.log lacks the start line: '%.300s'", log);
    CHECK(strstr(log, "] Cmd:set_default_device_pinned_mem_limit 0 8192M\n") != NULL &&
              strstr(log, "] Cmd:set_default_active_thread_percentage 10\n") != NULL && strstr(log, "] Cmd:quit\n") != NULL,
          "control.log lacks commands: '%.2000s'", log);
    const char *want = "get_default_active_thread_percentage\n"
                       "set_default_device_pinned_mem_limit 0 8192M\n"
                       "set_default_device_pinned_mem_limit GPU-7c1d5a3e-2b8f-4e60-9a14-c3d2e1f0a581 4G\n"
                       "set_default_active_thread_percentage 10\n"
                       "get_default_active_thread_percentage\n"
                       "get_default_device_pinned_mem_limit 0\n"
                       "get_default_device_pinned_mem_limit GPU-7c1d5a3e-2b8f-4e60-9a14-c3d2e1f0a581\n"
                       "get_default_device_pinned_mem_limit 1\n"
                       "get_server_list\n"
                       "set_default_active_thread_percentage 0\n"
                       "set_default_active_thread_percentage abc\n"
                       "set_default_device_pinned_mem_limit 0 lots\n"
                       "no_such_command 1\n"
                       "get_default_active_thread_percentage\n"
                       "get_default_device_pinned_mem_limit 0\n"
                       "quit\n";
    const char *got = read_file(e.commands);
    CHECK(strcmp(got, want) == 0, "the command log was:\n%s", got);
}

static void test_sigterm_and_restart(void) {
    mps_env e;
    env_for(&e, tmpdir, "nvidia.com/gpu.shared");
    result r = run(&e, "-d", NULL, limit_ms(1000));
    CHECK(r.status == 0, "-d: %d '%s'", r.status, r.err);
    pid_t pid = daemon_pid(&e);
    CHECK(pid > 1, "no pid file");
    r = client(&e, "set_default_active_thread_percentage 25");
    CHECK(strcmp(r.out, "25.0\n") == 0, "set: '%s'", r.out);
    if (pid > 1) {
        kill(pid, SIGTERM);
    }
    int st = wait_exit(pid, limit_ms(1000));
    CHECK(st == 0, "SIGTERM: the daemon exited %d, expected 0", st);
    char path[1100];
    snprintf(path, sizeof path, "%s/control", e.pipe);
    CHECK(!exists(path), "the control socket is left after SIGTERM");
    /* a restarted daemon starts from the defaults again (the real one keeps set values only until quit) */
    r = run(&e, "-d", NULL, limit_ms(1000));
    CHECK(r.status == 0, "-d after SIGTERM: %d '%s'", r.status, r.err);
    r = client(&e, "get_default_active_thread_percentage");
    CHECK(strcmp(r.out, "100.0\n") == 0, "after a restart: '%s'", r.out);
    pid = daemon_pid(&e);
    r = client(&e, "quit");
    CHECK(r.status == 0 && wait_exit(pid, limit_ms(1000)) == 0, "quit after restart");
}

/* a descriptor the caller lets the daemon inherit (as a careless launcher would) is closed in the daemon, so a
 * caller waiting for EOF on it is not kept waiting by the daemon */
static void test_inherited_descriptor(void) {
    mps_env e;
    env_for(&e, tmpdir, "inherited");
    int p[2];
    if (pipe(p) != 0) { /* no O_CLOEXEC: the -d process inherits both ends */
        CHECK(0, "pipe");
        return;
    }
    result r = run(&e, "-d", NULL, limit_ms(1000));
    CHECK(r.status == 0, "-d: %d '%s'", r.status, r.err);
    close(p[1]);
    struct pollfd pf = { p[0], POLLIN, 0 };
    char c;
    int ready = poll(&pf, 1, limit_ms(100));
    CHECK(ready == 1 && read(p[0], &c, 1) == 0, "the daemon keeps an inherited descriptor open (poll %d)", ready);
    close(p[0]);
    pid_t pid = daemon_pid(&e);
    r = client(&e, "quit");
    CHECK(r.status == 0 && wait_exit(pid, limit_ms(1000)) == 0, "quit");
}

static void test_stale_socket(void) {
    mps_env e;
    env_for(&e, tmpdir, "stale");
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", tmpdir, "stale");
    mkdir(path, 0755);
    mkdir(e.pipe, 0755);
    snprintf(path, sizeof path, "%s/control", e.pipe);
    close(open(path, O_CREAT | O_WRONLY, 0644)); /* left by a daemon that died */
    result r = run(&e, "-d", NULL, limit_ms(1000));
    CHECK(r.status == 0, "-d over a stale socket: %d '%s'", r.status, r.err);
    pid_t pid = daemon_pid(&e);
    r = client(&e, "quit");
    CHECK(r.status == 0 && wait_exit(pid, limit_ms(1000)) == 0, "quit over a stale socket");
}

static void test_foreground(void) {
    mps_env e;
    env_for(&e, tmpdir, "foreground");
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        CHECK(0, "pipe");
        return;
    }
    char pipe_var[1100], log_var[1100];
    snprintf(pipe_var, sizeof pipe_var, "CUDA_MPS_PIPE_DIRECTORY=%s", e.pipe);
    snprintf(log_var, sizeof log_var, "CUDA_MPS_LOG_DIRECTORY=%s", e.log);
    char *envp[] = { pipe_var, log_var, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50", NULL };
    char *argv[] = { (char *) binary, "-f", NULL };
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        execve(binary, argv, envp);
        _exit(127);
    }
    close(out[1]);
    /* it is ready when it has logged its start lines to stdout */
    char buf[4096];
    size_t got = 0;
    buf[0] = '\0';
    double deadline = now_ms() + limit_ms(1000);
    while (strstr(buf, "To connect CUDA applications") == NULL && got < sizeof buf - 1) {
        struct pollfd p = { out[0], POLLIN, 0 };
        int left = (int) (deadline - now_ms());
        if (left <= 0 || poll(&p, 1, left) <= 0) {
            break;
        }
        ssize_t n = read(out[0], buf + got, sizeof buf - 1 - got);
        if (n <= 0) {
            break;
        }
        got += (size_t) n;
        buf[got] = '\0';
    }
    CHECK(strstr(buf, "] Starting control daemon using socket ") != NULL, "-f printed '%s'", buf);
    result r = client(&e, "get_default_active_thread_percentage");
    CHECK(r.status == 0 && strcmp(r.out, "50.0\n") == 0,
          "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 at start: %d '%s' '%s'", r.status, r.out, r.err);
    r = client(&e, "quit");
    CHECK(r.status == 0, "quit: %d '%s'", r.status, r.err);
    int st = wait_exit(pid, limit_ms(1000));
    CHECK(st == 0, "-f after quit exited %d", st);
    close(out[0]);
}

static void test_failures(void) {
    /* the log directory cannot be created (a file is in the way): exit 1, a line naming it, nothing started */
    mps_env e;
    env_for(&e, tmpdir, "blocked");
    char path[1100];
    snprintf(path, sizeof path, "%s/blocked", tmpdir);
    mkdir(path, 0755);
    close(open(e.log, O_CREAT | O_WRONLY, 0644));
    result r = run(&e, "-d", NULL, limit_ms(1000));
    CHECK(r.status == 1 && strstr(r.err, "cannot create the log directory") != NULL && strstr(r.err, e.log) != NULL,
          "unwritable log directory: %d '%s'", r.status, r.err);
    snprintf(path, sizeof path, "%s/control", e.pipe);
    CHECK(!exists(path), "a control socket was left by a failed start");
    CHECK(no_children(), "a process was left by a failed start");
    unlink(e.log);

    /* a pipe directory too long for a socket path */
    mps_env longe;
    char deep[160];
    memset(deep, 'd', 150);
    deep[150] = '\0';
    env_for(&longe, tmpdir, deep);
    r = run(&longe, "-d", NULL, limit_ms(1000));
    CHECK(r.status == 1 && strstr(r.err, "must be shorter than") != NULL, "too long a pipe directory: %d '%s'", r.status,
          r.err);

    /* an unknown option */
    r = run(&e, "-x", NULL, limit_ms(1000));
    CHECK(r.status == 1 && strstr(r.err, "unknown option '-x'") != NULL, "-x: %d '%s'", r.status, r.err);
}

/* removes what the tests made under tmpdir */
static void remove_tree(const char *dir) {
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir); /* tmpdir is ours, from mkdtemp, without quotes */
    if (system(cmd) != 0) {
        printf("mps selftest: could not remove %s\n", dir);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: mps_control_selftest <nvidia-cuda-mps-control>\n");
        return 2;
    }
    binary = argv[1];
    const char *s = getenv("MOCK_NVML_SELFTEST_SLACK");
    if (s != NULL && atof(s) >= 1) {
        slack = atof(s);
    }
    /* daemons started with -d are reparented to us, so we can wait for them and see that none is left */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        perror("prctl(PR_SET_CHILD_SUBREAPER)");
        return 2;
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mps-control-selftest-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        { "no daemon", test_no_daemon },
        { "NVIDIA's sequence", test_nvidia_sequence },
        { "SIGTERM and restart", test_sigterm_and_restart },
        { "inherited descriptor", test_inherited_descriptor },
        { "stale socket", test_stale_socket },
        { "foreground", test_foreground },
        { "failures", test_failures },
    };
    double start = now_ms();
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        int before = failures;
        tests[i].fn();
        if (failures != before) {
            printf("mps selftest: '%s' failed\n", tests[i].name);
        }
    }
    CHECK(no_children(), "a daemon is still running after the tests");
    remove_tree(tmpdir);
    printf("mps selftest: %d checks, %d failed, %.0f ms\n", checks, failures, now_ms() - start);
    return failures == 0 ? 0 : 1;
}
