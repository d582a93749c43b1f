// Package sys is kdelta's only door to golang.org/x/sys/unix and to
// rtnetlink (vishvananda/netlink): raw system calls for measured loops, CPU
// affinity and scheduling policy, membarrier, network namespaces and the
// links in them, the tracefs and debugfs mounts perf would make, the
// re-execution of the kdelta binary as a child task that dies with its
// creator, and kexec_file_load with the reboot into the kernel it loaded.
//
// Each X_linux.go has an X_other.go for every other system, declaring the
// same names with the same types (TestStubsMatchLinux checks it): its
// calls return ErrNotLinux, so the packages that measure build there too
// and the commands that read results (compare, import, show, history,
// results, profile diff) run on a laptop.
//
// Measured loops call the Raw* functions, which enter the kernel without the
// Go runtime's entersyscall/exitsyscall bookkeeping. A raw call keeps its P
// while it is in the kernel, so a raw call that blocks (a pipe read, a poll)
// is only safe when GOMAXPROCS exceeds the number of threads that can block
// at once; workloads that block raise GOMAXPROCS before their timed window
// (see workload.Prepare).
package sys
