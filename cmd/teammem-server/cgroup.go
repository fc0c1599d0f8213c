package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// cgroupMemoryLimit returns the memory limit of the control group this
// process runs in, 0 when none is set: the least limit of its group and
// the groups above it (a container's limit may sit on its pod's group).
// It reads cgroup v2's memory.max and, where v2 has no memory controller,
// v1's memory.limit_in_bytes, found through /proc/self/cgroup and
// /proc/self/mountinfo under fsys (the root file system; a fixture in
// tests). Files that are missing mean no limit; one that cannot be parsed
// is an error.
func cgroupMemoryLimit(fsys fs.FS) (int64, error) {
	paths, err := readProcCgroup(fsys)
	if err != nil {
		return 0, err
	}
	mounts := readCgroupMounts(fsys)
	if p, ok := paths["v2"]; ok {
		limit, found, err := leastLimit(fsys, mounts["v2"], p, "memory.max")
		if err != nil || found {
			return limit, err
		}
	}
	if p, ok := paths["v1"]; ok {
		limit, _, err := leastLimit(fsys, mounts["v1"], p, "memory.limit_in_bytes")
		return limit, err
	}
	return 0, nil
}

// cgroupMount is where a cgroup hierarchy is mounted (dir, without the
// leading slash) and which of its groups is the mount's root.
type cgroupMount struct{ dir, root string }

// defaultMounts are the usual mount points, for a system whose mountinfo
// does not say.
var defaultMounts = map[string]cgroupMount{
	"v2": {"sys/fs/cgroup", "/"},
	"v1": {"sys/fs/cgroup/memory", "/"},
}

// readProcCgroup returns the process's group in the v2 hierarchy ("v2")
// and in the v1 hierarchy of the memory controller ("v1"), those it is in.
func readProcCgroup(fsys fs.FS) (map[string]string, error) {
	paths := map[string]string{}
	f, err := fsys.Open("proc/self/cgroup")
	if errors.Is(err, fs.ErrNotExist) {
		return paths, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(s.Text(), ":", 3)
		switch {
		case len(parts) != 3:
			continue
		case parts[0] == "0" && parts[1] == "":
			paths["v2"] = parts[2]
		case hasWord(parts[1], "memory"):
			paths["v1"] = parts[2]
		}
	}
	return paths, s.Err()
}

// readCgroupMounts returns the mounts of the v2 hierarchy and of v1's
// memory controller named by /proc/self/mountinfo, or the usual ones.
func readCgroupMounts(fsys fs.FS) map[string]cgroupMount {
	mounts := map[string]cgroupMount{}
	f, err := fsys.Open("proc/self/mountinfo")
	if err == nil {
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			// id parent major:minor root mount-point options [optional...] - type source super-options
			fields := strings.Fields(s.Text())
			sep := slices.Index(fields, "-")
			if sep < 5 || sep+3 >= len(fields) {
				continue
			}
			m := cgroupMount{dir: path.Clean(strings.TrimPrefix(fields[4], "/")), root: fields[3]}
			switch {
			case fields[sep+1] == "cgroup2":
				mounts["v2"] = m
			case fields[sep+1] == "cgroup" && hasWord(fields[sep+3], "memory"):
				mounts["v1"] = m
			}
		}
	}
	for k, m := range defaultMounts {
		if _, ok := mounts[k]; !ok {
			mounts[k] = m
		}
	}
	return mounts
}

// leastLimit reads file in group's directory of the hierarchy mounted at
// m and in each directory above it up to the mount point, and returns the
// least limit set; found reports that the file was there at all.
func leastLimit(fsys fs.FS, m cgroupMount, group, file string) (limit int64, found bool, err error) {
	dir := m.groupDir(group)
	for {
		b, err := fs.ReadFile(fsys, path.Join(dir, file))
		switch {
		case err == nil:
			found = true
			n, set, err := parseLimit(string(b))
			if err != nil {
				return 0, true, fmt.Errorf("read /%s: %w", path.Join(dir, file), err)
			}
			if set && (limit == 0 || n < limit) {
				limit = n
			}
		case !errors.Is(err, fs.ErrNotExist):
			return 0, found, fmt.Errorf("read /%s: %w", path.Join(dir, file), err)
		}
		if dir == m.dir || !strings.Contains(dir, "/") {
			return limit, found, nil
		}
		dir = path.Dir(dir)
	}
}

// groupDir is the directory of group in the hierarchy mounted at m: the
// mount point and the group's path below the mount's root. A group
// outside that root (a container sees its own group mounted as the root)
// is the mount point's.
func (m cgroupMount) groupDir(group string) string {
	group, root := path.Clean("/"+group), path.Clean("/"+m.root)
	rel, ok := strings.CutPrefix(group, root)
	switch {
	case root == "/":
		rel = group
	case !ok || rel != "" && rel[0] != '/':
		rel = ""
	}
	return path.Join(m.dir, rel)
}

// unlimitedV1 is the least value cgroup v1 reports for no limit: the
// largest int64 rounded down to a page.
const unlimitedV1 = 1 << 62

// parseLimit parses a memory.max or memory.limit_in_bytes value: bytes,
// or "max" (v2) or a value near 2^63 (v1) for none.
func parseLimit(s string) (limit int64, set bool, err error) {
	s = strings.TrimSpace(s)
	if s == "max" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, false, fmt.Errorf("memory limit %q is not a positive number of bytes", s)
	}
	return n, n < unlimitedV1, nil
}

// hasWord reports whether the comma-separated list holds word.
func hasWord(list, word string) bool {
	for w := range strings.SplitSeq(list, ",") {
		if w == word {
			return true
		}
	}
	return false
}
