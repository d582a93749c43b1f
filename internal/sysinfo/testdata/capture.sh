#!/bin/sh
# capture.sh DIR — copy the files kdelta's fingerprint reads from this
# machine into the fixture tree DIR (run as root, so that /dev/kmsg and the
# rcutree parameters are readable). This is how testdata/vm-6.18 was made.
# It copies plain files only; the kernel log goes to DIR/dmesg.txt (the
# first 150 lines of `dmesg`: boot, up to and past the "Dynamic Preempt"
# and RCU banner lines).
set -eu
dst=${1:?usage: capture.sh DIR}
copy() {
	for f in "$@"; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		mkdir -p "$dst$(dirname "$f")"
		cat "$f" >"$dst$f" 2>/dev/null || rm -f "$dst$f"
	done
}
copy /proc/cpuinfo /proc/version /proc/cmdline /proc/loadavg /proc/meminfo /proc/config.gz \
	/proc/sysinfo /proc/sys/kernel/osrelease /proc/sys/kernel/hostname \
	/proc/sys/kernel/tainted /proc/sys/kernel/perf_event_paranoid /etc/os-release \
	/etc/tuned/active_profile /boot/config-"$(uname -r)"
c=/sys/devices/system/cpu
copy $c/online $c/possible $c/present $c/isolated $c/nohz_full $c/smt/control $c/smt/active \
	$c/vulnerabilities/* $c/cpu[0-9]*/topology/thread_siblings_list \
	$c/cpuidle/current_driver $c/cpuidle/current_governor $c/cpuidle/current_governor_ro \
	$c/cpufreq/boost $c/cpufreq/policy*/scaling_driver $c/cpufreq/policy*/scaling_governor \
	$c/intel_pstate/no_turbo /sys/devices/system/node/online \
	/sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/rcu_expedited /sys/kernel/rcu_normal \
	/sys/module/rcutree/parameters/* \
	/sys/devices/system/clocksource/clocksource0/current_clocksource \
	/sys/fs/selinux/enforce /sys/kernel/security/lockdown /sys/kernel/debug/sched/preempt \
	/sys/class/dmi/id/sys_vendor /sys/class/dmi/id/product_name /sys/hypervisor/type
# Keep an empty cpufreq directory visible in git, as the live one is.
if [ -d $c/cpufreq ] && [ ! -d "$dst$c/cpufreq" ]; then
	mkdir -p "$dst$c/cpufreq" && : >"$dst$c/cpufreq/.gitkeep"
fi
dmesg | head -150 >"$dst/dmesg.txt"
