package sysinfo

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CPUInfo is what /proc/cpuinfo says about the processors. Its layout
// differs per architecture; Arch names the one recognised.
type CPUInfo struct {
	// Arch is x86_64, ppc64le (any POWER layout), s390x or aarch64, or ""
	// when the layout was not recognised.
	Arch       string
	Processors int
	Vendor     string
	Model      string
	Family     string
	// ModelID is the x86 model number.
	ModelID   string
	Stepping  string
	Microcode string
	// Platform and Machine are the POWER platform lines (pSeries,
	// "CHRP IBM,9080-HEX") and the s390 machine type.
	Platform string
	Machine  string
	// Hypervisor is the x86 "hypervisor" flag: the CPUID bit a hypervisor
	// sets for its guests.
	Hypervisor bool
}

// ParseCPUInfo parses /proc/cpuinfo of x86, POWER, s390 and arm64 kernels.
// Processors are assumed alike; for arm64 big.LITTLE systems every core
// type is listed in Model.
func ParseCPUInfo(data []byte) (*CPUInfo, error) {
	ci := &CPUInfo{}
	first := map[string]string{} // first value of each key
	var armParts []string        // implementer:part per processor
	var s390Machine, s390Version string
	var impl string

	for _, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		value = strings.TrimSpace(value)
		if key == "" {
			continue
		}
		// s390: "processor 0: version = 00,  identification = ..., machine = 2964"
		if n, ok := strings.CutPrefix(key, "processor "); ok && isDigits(n) {
			ci.Processors++
			for _, kv := range strings.Split(value, ",") {
				k, v, _ := strings.Cut(kv, "=")
				switch strings.TrimSpace(k) {
				case "version":
					s390Version = strings.TrimSpace(v)
				case "machine":
					s390Machine = strings.TrimSpace(v)
				}
			}
			continue
		}
		switch key {
		case "processor":
			ci.Processors++
		case "CPU implementer":
			impl = value
		case "CPU part":
			armParts = append(armParts, impl+":"+value)
		case "flags":
			if _, seen := first[key]; !seen && hasWord(value, "hypervisor") {
				ci.Hypervisor = true
			}
		}
		if _, seen := first[key]; !seen {
			first[key] = value
		}
	}

	switch {
	case first["vendor_id"] == "IBM/S390" || s390Machine != "":
		ci.Arch = "s390x"
		ci.Vendor = first["vendor_id"]
		if n := first["# processors"]; isDigits(n) {
			ci.Processors, _ = strconv.Atoi(n)
		}
		ci.Machine = s390Machine
		ci.Family = s390Family(s390Machine)
		ci.Stepping = s390Version
		if s390Machine != "" {
			ci.Model = "IBM " + s390Machine
			if ci.Family != "" {
				ci.Model = "IBM " + ci.Family + " (" + s390Machine + ")"
			}
		}
	case first["CPU implementer"] != "":
		ci.Arch = "aarch64"
		ci.Vendor = armImplementer(first["CPU implementer"])
		ci.Family = "ARMv" + first["CPU architecture"]
		ci.Model = armModel(armParts)
		if v, r := first["CPU variant"], first["CPU revision"]; v != "" && r != "" {
			if n, err := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 8); err == nil {
				ci.Stepping = fmt.Sprintf("r%dp%s", n, r)
			}
		}
	case first["cpu"] != "" && (first["revision"] != "" || first["platform"] != ""):
		ci.Arch = "ppc64le"
		ci.Model = first["cpu"]
		ci.Vendor = "IBM"
		if f := strings.Fields(ci.Model); len(f) > 0 {
			ci.Family = strings.TrimSuffix(f[0], ",")
		}
		ci.Stepping = first["revision"]
		ci.Platform = first["platform"]
		ci.Machine = first["model"]
		if m := first["machine"]; m != "" {
			ci.Machine = m
		}
	case first["vendor_id"] != "" || first["model name"] != "":
		ci.Arch = "x86_64"
		ci.Vendor = first["vendor_id"]
		ci.Model = first["model name"]
		ci.Family = first["cpu family"]
		ci.ModelID = first["model"]
		ci.Stepping = first["stepping"]
		ci.Microcode = first["microcode"]
	default:
		if len(first) == 0 {
			return nil, errors.New("cpuinfo: no \"key : value\" lines")
		}
		return ci, fmt.Errorf("cpuinfo: unknown layout (first key %q)", firstKey(data))
	}
	return ci, nil
}

// firstKey returns the key of the first "key : value" line of data.
func firstKey(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) != "" {
			return truncate(strings.TrimSpace(k), 40)
		}
	}
	return ""
}

// s390Family names IBM Z machine types (the "machine =" field).
func s390Family(machine string) string {
	return map[string]string{
		"2817": "z196", "2818": "z114", "2827": "zEC12", "2828": "zBC12",
		"2964": "z13", "2965": "z13s", "3906": "z14", "3907": "z14 ZR1",
		"8561": "z15", "8562": "z15 T02", "3931": "z16", "3932": "z16 A02",
	}[machine]
}

// armImplementer names an arm64 "CPU implementer" code.
func armImplementer(code string) string {
	name := map[string]string{
		"0x41": "ARM", "0x42": "Broadcom", "0x43": "Cavium", "0x46": "Fujitsu",
		"0x48": "HiSilicon", "0x4e": "NVIDIA", "0x50": "APM", "0x51": "Qualcomm",
		"0x53": "Samsung", "0x61": "Apple", "0xc0": "Ampere",
	}[strings.ToLower(code)]
	if name == "" {
		return "implementer " + code
	}
	return name
}

// armPartNames names common arm64 cores by implementer:part.
var armPartNames = map[string]string{
	"0x41:0xd03": "Cortex-A53", "0x41:0xd05": "Cortex-A55", "0x41:0xd07": "Cortex-A57",
	"0x41:0xd08": "Cortex-A72", "0x41:0xd0b": "Cortex-A76", "0x41:0xd0c": "Neoverse-N1",
	"0x41:0xd40": "Neoverse-V1", "0x41:0xd49": "Neoverse-N2", "0x41:0xd4f": "Neoverse-V2",
	"0x41:0xd85": "Cortex-X925", "0x41:0xd87": "Cortex-A725", "0x48:0xd01": "Kunpeng-920",
}

// armModel lists the distinct core types of parts, named where known:
// "Cortex-X925 (0xd85) + Cortex-A725 (0xd87)".
func armModel(parts []string) string {
	seen := map[string]bool{}
	var out []string
	for _, p := range parts {
		if seen[p] {
			continue
		}
		seen[p] = true
		_, part, _ := strings.Cut(p, ":")
		if n := armPartNames[strings.ToLower(p)]; n != "" {
			out = append(out, n+" ("+part+")")
		} else {
			out = append(out, "part "+part)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " + ")
}
