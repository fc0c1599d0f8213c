// Package buildinfo names the version of the running binary: the one set at
// link time (-ldflags "-X main.version=..."; `make build` does it), or else
// what the Go toolchain recorded (a module version for `go install`, the VCS
// revision for a build in a checkout).
package buildinfo

import (
	"runtime/debug"
)

// Version returns linked unless it is empty or "dev", else the best the
// build information offers, else "dev".
func Version(linked string) string {
	if linked != "" && linked != "dev" {
		return linked
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "dev"
	}
	return "dev-" + rev + dirty
}

// GoVersion is the Go release the binary was built with.
func GoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return "unknown"
}
