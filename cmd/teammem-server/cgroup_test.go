package main

import (
	"strings"
	"testing"
	"testing/fstest"
)

// mountinfo lines: a v2 hierarchy at /sys/fs/cgroup, and a v1 system whose
// memory controller is mounted at /sys/fs/cgroup/memory.
const (
	mountV2 = "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
	mountV1 = "30 22 0:27 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n" +
		"34 30 0:31 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:9 - cgroup cgroup rw,memory\n" +
		"35 30 0:32 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct\n"
	hybridUnified = "31 30 0:28 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:5 - cgroup2 cgroup2 rw,nsdelegate\n"
)

// files is a fixture file system: path → content.
type files map[string]string

func (f files) fs() fstest.MapFS {
	m := fstest.MapFS{}
	for p, c := range f {
		m[p] = &fstest.MapFile{Data: []byte(c)}
	}
	return m
}

func TestCgroupMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name  string
		files files
		want  int64
		err   string
	}{
		{name: "not Linux: no files"},
		{name: "v2 container (own namespace)", files: files{
			"proc/self/cgroup":            "0::/\n",
			"proc/self/mountinfo":         mountV2,
			"sys/fs/cgroup/memory.max":    "536870912\n",
			"sys/fs/cgroup/memory.high":   "max\n",
			"sys/fs/cgroup/cgroup.procs":  "1\n",
			"sys/fs/cgroup/memory.swap.m": "0\n",
		}, want: 512 * mib},
		{name: "v2 without a limit", files: files{
			"proc/self/cgroup":         "0::/\n",
			"proc/self/mountinfo":      mountV2,
			"sys/fs/cgroup/memory.max": "max\n",
		}},
		{name: "v2: the pod's limit above the container's group", files: files{
			"proc/self/cgroup":                            "0::/kubepods/pod7/ctr1\n",
			"proc/self/mountinfo":                         mountV2,
			"sys/fs/cgroup/kubepods/pod7/ctr1/memory.max": "max\n",
			"sys/fs/cgroup/kubepods/pod7/memory.max":      "268435456\n",
			"sys/fs/cgroup/kubepods/memory.max":           "max\n",
		}, want: 256 * mib},
		{name: "v2: the least of the group and its parents", files: files{
			"proc/self/cgroup":    "0::/system.slice/teammem.service\n",
			"proc/self/mountinfo": mountV2,
			"sys/fs/cgroup/system.slice/teammem.service/memory.max": "104857600\n",
			"sys/fs/cgroup/system.slice/memory.max":                 "1073741824\n",
		}, want: 100 * mib},
		{name: "v2: a group mounted as the root (no namespace)", files: files{
			"proc/self/cgroup":         "0::/docker/abc123\n",
			"proc/self/mountinfo":      strings.Replace(mountV2, " / /sys/fs/cgroup ", " /docker/abc123 /sys/fs/cgroup ", 1),
			"sys/fs/cgroup/memory.max": "209715200\n",
		}, want: 200 * mib},
		{name: "v2 without mountinfo: the usual mount point", files: files{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "314572800\n",
		}, want: 300 * mib},
		{name: "v1 container", files: files{
			"proc/self/cgroup":                           "12:pids:/docker/abc\n4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n",
			"proc/self/mountinfo":                        strings.Replace(mountV1, "0:31 / ", "0:31 /docker/abc ", 1),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456\n",
		}, want: 256 * mib},
		{name: "v1 unlimited", files: files{
			"proc/self/cgroup":    "4:memory:/process_api/5152\n",
			"proc/self/mountinfo": mountV1,
			"sys/fs/cgroup/memory/process_api/5152/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                  "9223372036854771712\n",
		}},
		{name: "v1 host path below the mount", files: files{
			"proc/self/cgroup":    "4:memory:/user.slice/job\n",
			"proc/self/mountinfo": mountV1,
			"sys/fs/cgroup/memory/user.slice/job/memory.limit_in_bytes": "157286400\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                "9223372036854771712\n",
		}, want: 150 * mib},
		{name: "hybrid: v2 has no memory controller, v1 has the limit", files: files{
			"proc/self/cgroup":                               "4:memory:/app\n0::/app\n",
			"proc/self/mountinfo":                            mountV1 + hybridUnified,
			"sys/fs/cgroup/unified/app/cgroup.procs":         "1\n",
			"sys/fs/cgroup/memory/app/memory.limit_in_bytes": "419430400\n",
		}, want: 400 * mib},
		{name: "malformed limit", files: files{
			"proc/self/cgroup":         "0::/\n",
			"proc/self/mountinfo":      mountV2,
			"sys/fs/cgroup/memory.max": "lots\n",
		}, err: `memory limit "lots" is not a positive number of bytes`},
		{name: "malformed lines are skipped", files: files{
			"proc/self/cgroup":         "garbage\n0::/\n",
			"proc/self/mountinfo":      "short line\n" + mountV2,
			"sys/fs/cgroup/memory.max": "1048576\n",
		}, want: mib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := cgroupMemoryLimit(c.files.fs())
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("cgroupMemoryLimit = %d, %v; want an error with %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("cgroupMemoryLimit = %d, %v; want %d", got, err, c.want)
			}
		})
	}
}
