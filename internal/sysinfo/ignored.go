package sysinfo

import (
	"fmt"
	"sort"
)

// Boot parameters a kernel takes without a word and ignores when it was
// built without what they set: seed 000's trap, preempt=full on a kernel
// without PREEMPT_DYNAMIC, whose mode stays the build's.
var ignoredWithout = []struct{ param, config, what string }{
	{"preempt", "CONFIG_PREEMPT_DYNAMIC", "PREEMPT_DYNAMIC"},
	{"nohz_full", "CONFIG_NO_HZ_FULL", "NO_HZ_FULL"},
	{"rcu_nocbs", "CONFIG_RCU_NOCB_CPU", "RCU_NOCB_CPU"},
}

// ignoredParams lists the command line's parameters that this kernel's
// config makes void. Without the config nothing is said.
func (c *collector) ignoredParams() {
	if c.config == nil {
		return
	}
	var out []string
	for _, ig := range ignoredWithout {
		v, ok := c.cmdline[ig.param]
		if !ok || c.config.On(ig.config) {
			continue
		}
		s := fmt.Sprintf("%s=%s on the command line is ignored: this kernel has no %s", ig.param, v, ig.what)
		if ig.param == "preempt" && c.fp.Preempt.Model.Known() {
			s += fmt.Sprintf("; the mode is the build's (%s)", c.fp.Preempt.Model.Value)
		}
		out = append(out, s)
	}
	sort.Strings(out)
	c.fp.Ignored = out
}
