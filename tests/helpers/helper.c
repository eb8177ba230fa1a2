/*
 * abev-helper: the small, predictable programs that abev's tests run as
 * children — sleepers, spinners, allocators, crashers, hangers, forkers,
 * floods and reporters of what the child saw (environment, cwd, stdin).
 * Plain C, no dependencies; every mode prints its findings as key=value
 * lines so that tests can assert on them.
 *
 * sleep and spin also say what they measured of themselves, so that a test
 * compares abev's figures with the helper's own rather than with the clock
 * on the wall (on a busy machine, a 200 ms sleep takes what it takes):
 *   start_mono_ns=  printed and flushed first, once the mode has begun
 *   end_mono_ns= start_real_ns= end_real_ns=  CLOCK_MONOTONIC / CLOCK_REALTIME
 *   cpu_ns=  CLOCK_PROCESS_CPUTIME_ID at the end
 *   user_ns= sys_ns=  getrusage(RUSAGE_SELF) at the end
 * The start is taken on entry to main(), the end just before the report:
 * the helper's whole measured life lies inside what abev sees of it.
 *
 *   abev-helper sleep MS | spin MS | touch MIB | crash | exit N | hang
 *   abev-helper threads N MS           N threads busy for MS ms of wall time
 *                                      each (a multi-threaded runtime's own
 *                                      threads contending for the CPUs)
 *   abev-helper spin-threads N MS      N threads that each spin MS ms of CPU
 *                                      time: a fixed amount of work that
 *                                      more threads than cores share
 *   abev-helper spin-sleep MS          MS ms of CPU time in 10 ms pieces,
 *                                      each followed by a 10 ms sleep (a
 *                                      single thread that also waits on I/O)
 *   abev-helper tree PARENT_MS CHILD_MS  spins PARENT_MS, then runs itself as
 *                                      "spin CHILD_MS" and waits for it (a
 *                                      CLI that starts a test host)
 *   abev-helper hang-with-child PIDFILE [--ignore-term] | daemonize PIDFILE
 *   abev-helper flood BYTES | env NAME... | pwd | stdin | stderr TEXT
 *   abev-helper sleep-pid PIDFILE MS   writes its pid, then sleeps MS
 *   abev-helper fds                    lists its open descriptors (fds=0,1,2)
 *   abev-helper ids                    its uid, gid and groups
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fputs("usage: abev-helper sleep MS | spin MS | threads N MS | touch MIB | crash |\n"
	      "       spin-threads N MS | spin-sleep MS | tree PARENT_MS CHILD_MS |\n"
	      "       exit N | hang |\n"
	      "       hang-with-child PIDFILE [--ignore-term] | daemonize PIDFILE |\n"
	      "       flood BYTES | env NAME... | pwd | stdin | stderr TEXT |\n"
	      "       sleep-pid PIDFILE MS | fds | ids\n",
	      stderr);
	return 2;
}

static int number(const char *s, long long max, long long *out)
{
	char *end;
	long long v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void sleep_ms(long long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static int64_t tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

/* The helper's own clocks at the start of main(). */
static int64_t start_mono, start_real;

/* Says that the mode has begun: a test may wait for this line. */
static void report_start(void)
{
	printf("start_mono_ns=%lld\n", (long long)start_mono);
	fflush(stdout);
}

/* What the helper measured of itself, taken before anything is printed. */
static void report_end(void)
{
	int64_t end_mono = clock_ns(CLOCK_MONOTONIC), end_real = clock_ns(CLOCK_REALTIME);
	int64_t cpu = cpu_ns();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("end_mono_ns=%lld\nstart_real_ns=%lld\nend_real_ns=%lld\ncpu_ns=%lld\n"
	       "user_ns=%lld\nsys_ns=%lld\n", (long long)end_mono, (long long)start_real,
	       (long long)end_real, (long long)cpu, (long long)tv_ns(&ru.ru_utime),
	       (long long)tv_ns(&ru.ru_stime));
	fflush(stdout);
}

/* Reads a "Name:   N kB" line of /proc/self/status, in bytes; -1 if absent. */
static long long status_kb(const char *key)
{
	char buf[8192];
	size_t len = 0, klen = strlen(key);
	int fd = open("/proc/self/status", O_RDONLY);
	if (fd < 0)
		return -1;
	while (len < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	for (char *line = buf; line && *line; ) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			char *p = line + klen + 1, *end;
			long long v;
			while (*p == ' ' || *p == '\t')
				p++;
			errno = 0;
			v = strtoll(p, &end, 10);
			if (errno || end == p)
				return -1;
			return v * 1024;
		}
		line = next;
	}
	return -1;
}

/* Writes text to path atomically: a reader sees all of it or nothing. */
static int write_pidfile(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	int fd;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (write_all(fd, text, strlen(text)) < 0 || close(fd) < 0) {
		unlink(tmp);
		return -1;
	}
	return rename(tmp, path);
}

static void pause_forever(void)
{
	for (;;)
		pause();
}

static int mode_touch(long long mib)
{
	size_t size = (size_t)mib << 20;
	long long base = status_kb("VmRSS");
	char *p;
	printf("baseline_rss_bytes=%lld\n", base);
	fflush(stdout);
	p = malloc(size ? size : 1);
	if (!p) {
		fprintf(stderr, "abev-helper: cannot allocate %lld MiB\n", mib);
		return 1;
	}
	for (size_t i = 0; i < size; i += 4096)
		((volatile char *)p)[i] = 1;
	printf("hwm_bytes=%lld\n", status_kb("VmHWM"));
	free(p);
	return 0;
}

static int mode_hang_with_child(const char *pidfile, int ignore_term)
{
	char text[64];
	pid_t kid;
	if (ignore_term)
		signal(SIGTERM, SIG_IGN);
	kid = fork();
	if (kid < 0) {
		perror("abev-helper: fork");
		return 1;
	}
	if (kid == 0)
		pause_forever();
	snprintf(text, sizeof(text), "%ld %ld\n", (long)getpid(), (long)kid);
	if (write_pidfile(pidfile, text) < 0) {
		perror("abev-helper: pidfile");
		return 1;
	}
	pause_forever();
	return 0;
}

static int mode_daemonize(const char *pidfile)
{
	int sync[2];
	char c;
	pid_t kid;

	/*
	 * The parent exits as soon as the grandchild has left the session and
	 * written its pid, so that a test always finds a true escapee.
	 */
	if (pipe(sync) < 0) {
		perror("abev-helper: pipe");
		return 1;
	}
	kid = fork();
	if (kid < 0) {
		perror("abev-helper: fork");
		return 1;
	}
	if (kid == 0) {
		char text[32];
		close(sync[0]);
		setsid();
		snprintf(text, sizeof(text), "%ld\n", (long)getpid());
		if (write_pidfile(pidfile, text) < 0)
			_exit(1);
		if (write_all(sync[1], "", 1) < 0)
			_exit(1);
		close(sync[1]);
		pause_forever();
	}
	close(sync[1]);
	while (read(sync[0], &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

static int mode_flood(long long bytes)
{
	static char chunk[65536];
	/* 'x' lines of 64 characters plus a newline. */
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (i % 65 == 64) ? '\n' : 'x';
	while (bytes > 0) {
		size_t n = bytes > (long long)sizeof(chunk) ? sizeof(chunk) : (size_t)bytes;
		if (write_all(1, chunk, n) < 0)
			return 1;
		bytes -= (long long)n;
	}
	return 0;
}

static int mode_stdin(void)
{
	char buf[4096];
	long long total = 0;
	for (;;) {
		ssize_t n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	printf("stdin_bytes=%lld\n", total);
	return 0;
}

/* Lists the descriptors open in this process, but the one that reads the list. */
static int mode_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int first = 1;
	if (!d) {
		perror("abev-helper: /proc/self/fd");
		return 1;
	}
	fputs("fds=", stdout);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(d))
			continue;
		printf("%s%s", first ? "" : ",", de->d_name);
		first = 0;
	}
	putchar('\n');
	closedir(d);
	return 0;
}

static int mode_ids(void)
{
	gid_t groups[256];
	int n = getgroups(256, groups);
	printf("uid=%ld\neuid=%ld\ngid=%ld\negid=%ld\ngroups=", (long)getuid(), (long)geteuid(),
	       (long)getgid(), (long)getegid());
	for (int i = 0; i < n; i++)
		printf("%s%ld", i ? "," : "", (long)groups[i]);
	putchar('\n');
	return 0;
}

static void *busy_thread(void *arg)
{
	int64_t until = *(const int64_t *)arg;
	volatile unsigned long x = 0;

	while (clock_ns(CLOCK_MONOTONIC) < until)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	return NULL;
}

/* Spins the calling thread for ns of its own CPU time (arg: an int64_t). */
static void *spin_thread(void *arg)
{
	int64_t until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + *(const int64_t *)arg;
	volatile unsigned long x = 0;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	return NULL;
}

/* Spins ms of the process's CPU time. */
static void spin_ms(long long ms)
{
	int64_t until = cpu_ns() + (int64_t)ms * 1000000;
	volatile unsigned long x = 0;

	/*
	 * Reading a CPU-time clock is a system call: the spin spends part
	 * of its time in the kernel, which report_end() shows as sys_ns.
	 */
	while (cpu_ns() < until)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
}

/*
 * n threads (the main one among them) each running fn(arg), after
 * report_start(): joins them, says how many ran and reports the end.
 */
static int run_threads(long long n, void *(*fn)(void *), void *arg)
{
	pthread_t tid[64];
	long long started = 0;

	for (; started < n - 1; started++)
		if (pthread_create(&tid[started], NULL, fn, arg) != 0) {
			fprintf(stderr, "abev-helper: cannot start a thread\n");
			break;
		}
	fn(arg);
	for (long long i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	printf("threads=%lld\n", started + 1);
	report_end();
	return started == n - 1 ? 0 : 1;
}

/* n threads (the main one among them) that each spin ms of CPU time. */
static int mode_spin_threads(long long n, long long ms)
{
	int64_t ns = (int64_t)ms * 1000000;

	report_start();
	return run_threads(n, spin_thread, &ns);
}

/* ms of CPU time in 10 ms pieces, a 10 ms sleep after each. */
static int mode_spin_sleep(long long ms)
{
	report_start();
	for (long long done = 0; done < ms; done += 10) {
		spin_ms(ms - done < 10 ? ms - done : 10);
		sleep_ms(10);
	}
	report_end();
	return 0;
}

/* Spins parent_ms, then runs "SELF spin CHILD_MS" and waits for it: its exit code. */
static int mode_tree(long long parent_ms, const char *child_ms)
{
	char self[PATH_MAX];
	char *const argv[] = { self, (char *)"spin", (char *)child_ms, NULL };
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status;
	pid_t pid;

	if (len < 0)
		return 1;
	self[len] = '\0';
	report_start();
	spin_ms(parent_ms);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(self, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	report_end();
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* n threads (the main one among them) busy until ms of wall time have passed. */
static int mode_threads(long long n, long long ms)
{
	int64_t until;

	report_start();
	until = clock_ns(CLOCK_MONOTONIC) + (int64_t)ms * 1000000;
	return run_threads(n, busy_thread, &until);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : NULL;
	long long v;

	start_mono = clock_ns(CLOCK_MONOTONIC);
	start_real = clock_ns(CLOCK_REALTIME);
	if (!strcmp(mode, "sleep") && number(arg, 86400000LL, &v) == 0) {
		report_start();
		sleep_ms(v);
		report_end();
		return 0;
	}
	if (!strcmp(mode, "spin") && number(arg, 86400000LL, &v) == 0) {
		report_start();
		spin_ms(v);
		report_end();
		return 0;
	}
	if (!strcmp(mode, "spin-threads") && number(arg, 64, &v) == 0 && v >= 1 && argc == 4) {
		long long ms;
		if (number(argv[3], 86400000LL, &ms) == 0)
			return mode_spin_threads(v, ms);
	}
	if (!strcmp(mode, "spin-sleep") && number(arg, 86400000LL, &v) == 0 && argc == 3)
		return mode_spin_sleep(v);
	if (!strcmp(mode, "tree") && number(arg, 86400000LL, &v) == 0 && argc == 4) {
		long long ms;
		if (number(argv[3], 86400000LL, &ms) == 0)
			return mode_tree(v, argv[3]);
	}
	if (!strcmp(mode, "threads") && number(arg, 64, &v) == 0 && v >= 1 && argc == 4) {
		long long ms;
		if (number(argv[3], 86400000LL, &ms) == 0)
			return mode_threads(v, ms);
	}
	if (!strcmp(mode, "touch") && number(arg, 1 << 20, &v) == 0)
		return mode_touch(v);
	if (!strcmp(mode, "crash")) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return 1;
	}
	if (!strcmp(mode, "exit") && number(arg, 255, &v) == 0)
		return (int)v;
	if (!strcmp(mode, "hang")) {
		pause_forever();
		return 0;
	}
	if (!strcmp(mode, "hang-with-child") && arg &&
	    (argc == 3 || (argc == 4 && !strcmp(argv[3], "--ignore-term"))))
		return mode_hang_with_child(arg, argc == 4);
	if (!strcmp(mode, "daemonize") && arg && argc == 3)
		return mode_daemonize(arg);
	if (!strcmp(mode, "sleep-pid") && arg && argc == 4 &&
	    number(argv[3], 86400000LL, &v) == 0) {
		char text[32];
		snprintf(text, sizeof(text), "%ld\n", (long)getpid());
		if (write_pidfile(arg, text) < 0) {
			perror("abev-helper: pidfile");
			return 1;
		}
		report_start();
		sleep_ms(v);
		report_end();
		return 0;
	}
	if (!strcmp(mode, "fds") && argc == 2)
		return mode_fds();
	if (!strcmp(mode, "ids") && argc == 2)
		return mode_ids();
	if (!strcmp(mode, "flood") && number(arg, LLONG_MAX, &v) == 0)
		return mode_flood(v);
	if (!strcmp(mode, "env") && argc > 2) {
		for (int i = 2; i < argc; i++) {
			const char *val = getenv(argv[i]);
			if (val)
				printf("%s=%s\n", argv[i], val);
			else
				printf("%s is unset\n", argv[i]);
		}
		return 0;
	}
	if (!strcmp(mode, "pwd")) {
		char buf[PATH_MAX];
		if (!getcwd(buf, sizeof(buf))) {
			perror("abev-helper: getcwd");
			return 1;
		}
		printf("%s\n", buf);
		return 0;
	}
	if (!strcmp(mode, "stdin"))
		return mode_stdin();
	if (!strcmp(mode, "stderr") && arg && argc == 3) {
		fputs(arg, stderr);
		return 0;
	}
	return usage();
}
