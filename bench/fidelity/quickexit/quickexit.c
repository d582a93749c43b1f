/*
 * quickexit.so: an LD_PRELOAD for hackbench that ends every forked worker
 * with _exit() instead of glibc's exit(), so a worker skips the atexit
 * handlers, stdio's cleanup and the dynamic loader's destructors. The
 * process that loaded it first (hackbench's parent) keeps exit(), so its
 * "Time:" line is still flushed. It measures how much of hackbench's timed
 * window is the C library's exit path (README, fidelity):
 *
 *   gcc -O2 -shared -fPIC -o quickexit.so quickexit.c -ldl
 *   LD_PRELOAD=$PWD/quickexit.so hackbench -p -g 10 -l 100
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static pid_t parent;

__attribute__((constructor)) static void remember_parent(void)
{
	parent = getpid();
}

void exit(int status)
{
	if (getpid() != parent)
		_exit(status);
	void (*libc_exit)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
	if (libc_exit)
		libc_exit(status);
	_exit(status);
}
