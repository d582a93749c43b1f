// pingpong is perf bench sched pipe -T's loop (the order before perf 6.15:
// worker 0 reads first) on two pthreads, with the reads and writes made
// through syscall(2) rather than glibc's read and write. In a process
// with threads those are cancellation points, and glibc switches
// asynchronous cancellation on and off around every call; here nothing
// but the system calls is left, as in kdelta's raw threads, so the pair
// "pipe thread ... (C with raw calls)" in bench/fidelity compares kdelta
// with the kernel's share of perf's work alone.
//
// With two CPUs it places worker 0 on the first and worker 1 on the
// second, each before its first call, as kdelta's pipe:cpus=split does:
// perf bench sched pipe has no option for that, so the "split" pairs
// compare kdelta with this. -p makes worker 0 a forked child and the
// parent worker 1, as perf's default process mode.
//
//	pingpong [-p] LOOPS [CPU0 CPU1]    prints "N usecs/op", as perf does
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int pipe_a[2], pipe_b[2], loops;
static int cpu[2] = { -1, -1 };

// pin moves the calling task to worker w's CPU, if one was given.
static void pin(int w)
{
	cpu_set_t set;

	if (cpu[w] < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu[w], &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("pingpong: sched_setaffinity");
		exit(1);
	}
}

static void xfer(long nr, int fd, int *tok)
{
	if (syscall(nr, fd, tok, sizeof(*tok)) != sizeof(*tok)) {
		perror("pingpong");
		exit(1);
	}
}

static void *worker0(void *unused)
{
	int tok = 0;
	pin(0);
	for (int i = 0; i < loops; i++) {
		xfer(SYS_read, pipe_a[0], &tok);
		xfer(SYS_write, pipe_b[1], &tok);
	}
	return NULL;
}

static void *worker1(void *unused)
{
	int tok = 0;
	pin(1);
	for (int i = 0; i < loops; i++) {
		xfer(SYS_write, pipe_a[1], &tok);
		xfer(SYS_read, pipe_b[0], &tok);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timeval start, stop;
	pthread_t t0, t1;
	int procs = 0;

	if (argc > 1 && strcmp(argv[1], "-p") == 0) {
		procs = 1;
		argc--, argv++;
	}
	if ((argc != 2 && argc != 4) || (loops = atoi(argv[1])) <= 0 ||
	    (argc == 4 && ((cpu[0] = atoi(argv[2])) < 0 || (cpu[1] = atoi(argv[3])) < 0))) {
		fprintf(stderr, "usage: pingpong [-p] LOOPS [CPU0 CPU1]\n");
		return 2;
	}
	if (pipe(pipe_a) || pipe(pipe_b)) {
		perror("pipe");
		return 1;
	}
	// As perf: the window holds creating and joining the threads, or
	// forking and reaping the child.
	gettimeofday(&start, NULL);
	if (procs) {
		pid_t pid = fork();
		int status;
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			worker0(NULL);
			_exit(0);
		}
		worker1(NULL);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "pingpong: worker 0 failed\n");
			return 1;
		}
	} else {
		pthread_create(&t0, NULL, worker0, NULL);
		pthread_create(&t1, NULL, worker1, NULL);
		pthread_join(t0, NULL);
		pthread_join(t1, NULL);
	}
	gettimeofday(&stop, NULL);
	printf("%.6f usecs/op\n", ((stop.tv_sec - start.tv_sec) * 1e6 + (stop.tv_usec - start.tv_usec)) / loops);
	return 0;
}
