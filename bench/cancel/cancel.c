// cancel.c: what glibc adds in user space to a cancellable system call
// of a multi-threaded process. It times read(fd, &b, 0) on a pipe, which
// enters the kernel and returns at once, through glibc's read() and
// through syscall(2), with a second thread alive (glibc brackets only the
// calls of a multi-threaded process), and prints both in ns per call and
// their difference, rounds times. bench/cancel.sh sets it beside kdelta's sys.CancelWord.
//
//   gcc -O2 -o cancel cancel.c -lpthread && ./cancel [calls] [rounds]
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 2000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	int fds[2];
	pthread_t t;
	char b;

	if (calls < 1 || rounds < 1 || pipe(fds) != 0 || pthread_create(&t, NULL, idle, NULL) != 0) {
		fprintf(stderr, "cancel: usage: cancel [calls] [rounds]; or pipe/pthread_create failed\n");
		return 2;
	}
	// Blocks of 1000 calls alternate between the two, so that a change
	// of the machine's speed falls on both alike.
	for (int r = 0; r < rounds; r++) {
		double wrapped = 0, bare = 0;
		for (long done = 0; done < calls; done += 1000) {
			double t0 = now_ns();
			for (int i = 0; i < 1000; i++)
				if (read(fds[0], &b, 0) != 0)
					return 1;
			double t1 = now_ns();
			for (int i = 0; i < 1000; i++)
				if (syscall(SYS_read, fds[0], &b, 0) != 0)
					return 1;
			wrapped += t1 - t0;
			bare += now_ns() - t1;
		}
		long n = (calls + 999) / 1000 * 1000;
		printf("glibc %.2f ns/call raw %.2f ns/call added %.2f ns/call\n", wrapped / n, bare / n, (wrapped - bare) / n);
	}
	return 0;
}
