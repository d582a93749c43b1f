// pingpong is perf bench sched pipe -T's loop (the order before perf 6.15:
// worker 0 reads first) on two pthreads, with the reads and writes made
// through syscall(2) rather than glibc's read and write. In a process
// with threads those are cancellation points, and glibc switches
// asynchronous cancellation on and off around every call; here nothing
// but the system calls is left, as in kdelta's raw threads, so the pair
// "pipe thread ... (C with raw calls)" in bench/fidelity compares kdelta
// with the kernel's share of perf's work alone.
//
//	pingpong LOOPS    prints "N usecs/op", as perf does
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

static int pipe1[2], pipe2[2], loops;

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
	for (int i = 0; i < loops; i++) {
		xfer(SYS_read, pipe1[0], &tok);
		xfer(SYS_write, pipe2[1], &tok);
	}
	return NULL;
}

static void *worker1(void *unused)
{
	int tok = 0;
	for (int i = 0; i < loops; i++) {
		xfer(SYS_write, pipe1[1], &tok);
		xfer(SYS_read, pipe2[0], &tok);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timeval start, stop;
	pthread_t t0, t1;

	if (argc != 2 || (loops = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: pingpong LOOPS\n");
		return 2;
	}
	if (pipe(pipe1) || pipe(pipe2)) {
		perror("pipe");
		return 1;
	}
	// As perf: the window holds creating and joining the threads.
	gettimeofday(&start, NULL);
	pthread_create(&t0, NULL, worker0, NULL);
	pthread_create(&t1, NULL, worker1, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	gettimeofday(&stop, NULL);
	printf("%.6f usecs/op\n", ((stop.tv_sec - start.tv_sec) * 1e6 + (stop.tv_usec - start.tv_usec)) / loops);
	return 0;
}
