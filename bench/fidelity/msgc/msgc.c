/*
 * msgc: messaging's process mode in plain C, for bench/fidelity. The
 * algorithm is the one perf bench sched messaging and rt-tests hackbench
 * run (../shared/WORKLOADS.md, section 1), with nothing else: per group,
 * 20 receivers each with one fd pair (an AF_UNIX stream socketpair, or a
 * pipe with -p), then 20 senders holding the group's 20 write ends; every
 * worker writes a byte to the ready pair and polls the wake pair; the
 * parent reads every ready byte, reads the clock, writes one wake byte
 * and waits for its children in creation order, then reads the clock
 * again. A receiver closes its own pair's write end, the parent a pair's
 * read end once the receiver is forked and the group's write ends once
 * its senders are. Workers end with exit(0), as the references' do.
 *
 * fidelity.sh builds it twice, statically linked and against the shared C
 * library, so the pairs "(static C)" and "(dynamic C)" show how much of
 * hackbench's timed window is its process image (the workers' copy-on-write
 * faults and their address space's teardown at exit) rather than messaging.
 *
 *	msgc [-p] [-g GROUPS] [-l LOOPS]    prints "Time: S.mmm" as hackbench does
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FDS 20
#define SIZE 100

static int use_pipe, groups = 10, loops = 100;
static int ready_fds[2], wake_fds[2];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void pair(int fds[2])
{
	if (use_pipe ? pipe(fds) : socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
		die(use_pipe ? "pipe" : "socketpair");
}

/* barrier: say ready, then sleep until the parent's one wake byte. */
static void barrier(void)
{
	char c = 0;
	struct pollfd p = { .fd = wake_fds[0], .events = POLLIN };

	if (write(ready_fds[1], &c, 1) != 1)
		die("ready");
	if (poll(&p, 1, -1) != 1)
		die("poll");
}

/* move: one whole message, through short transfers. */
static void move(int fd, char *buf, int out)
{
	int done = 0;

	while (done < SIZE) {
		ssize_t n = out ? write(fd, buf + done, SIZE - done) : read(fd, buf + done, SIZE - done);
		if (n <= 0)
			die(out ? "write" : "read");
		done += n;
	}
}

static void receiver(int in)
{
	char buf[SIZE];

	barrier();
	for (int i = 0; i < FDS * loops; i++)
		move(in, buf, 0);
	exit(0);
}

static void sender(const int *outs)
{
	char buf[SIZE];

	memset(buf, 0, sizeof(buf));
	barrier();
	for (int i = 0; i < loops; i++)
		for (int j = 0; j < FDS; j++)
			move(outs[j], buf, 1);
	exit(0);
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "pg:l:")) != -1) {
		switch (opt) {
		case 'p': use_pipe = 1; break;
		case 'g': groups = atoi(optarg); break;
		case 'l': loops = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: msgc [-p] [-g GROUPS] [-l LOOPS]\n");
			return 2;
		}
	}
	if (groups < 1 || loops < 1) {
		fprintf(stderr, "msgc: -g and -l must be at least 1\n");
		return 2;
	}
	/* Nothing buffered may be copied into the workers. */
	fflush(NULL);
	pair(ready_fds);
	pair(wake_fds);
	pid_t *pids = calloc(2 * FDS * groups, sizeof(pid_t));
	if (!pids)
		die("calloc");
	int n = 0;
	for (int g = 0; g < groups; g++) {
		int outs[FDS];
		for (int i = 0; i < FDS; i++) {
			int fds[2];
			pair(fds);
			outs[i] = fds[1];
			pid_t pid = fork();
			if (pid < 0)
				die("fork");
			if (pid == 0) {
				close(fds[1]);
				receiver(fds[0]);
			}
			close(fds[0]);
			pids[n++] = pid;
		}
		for (int i = 0; i < FDS; i++) {
			pid_t pid = fork();
			if (pid < 0)
				die("fork");
			if (pid == 0)
				sender(outs);
			pids[n++] = pid;
		}
		for (int i = 0; i < FDS; i++)
			close(outs[i]);
	}
	char c;
	for (int i = 0; i < n; i++)
		if (read(ready_fds[0], &c, 1) != 1)
			die("ready");
	struct timespec start, stop;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (write(wake_fds[1], &c, 1) != 1)
		die("wake");
	int failed = 0;
	for (int i = 0; i < n; i++) {
		int status;
		if (waitpid(pids[i], &status, 0) != pids[i])
			die("waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &stop);
	if (failed) {
		fprintf(stderr, "msgc: a worker failed\n");
		return 1;
	}
	printf("Time: %.3f\n", (double)(stop.tv_sec - start.tv_sec) + (stop.tv_nsec - start.tv_nsec) / 1e9);
	return 0;
}
