package e2e

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersion: both programs print the version linked into them with
// --version and with their version command.
func TestVersion(t *testing.T) {
	for _, c := range []struct{ bin, pkg, name string }{
		{serverBin, "../cmd/teammem-server", "teammem-server"},
		{agentBin, "../cmd/teammem-agent", "teammem-agent"},
	} {
		want := c.name + " " + builtVersion
		if os.Getenv(overrideEnv[c.pkg]) != "" {
			want = c.name + " " // a prebuilt binary carries its own version
		}
		for _, arg := range []string{"--version", "version"} {
			out, err := exec.Command(c.bin, arg).CombinedOutput()
			if err != nil {
				t.Errorf("%s %s: %v %s", c.name, arg, err, out)
				continue
			}
			if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got+" ", want) || strings.Contains(got, "\n") {
				t.Errorf("%s %s printed %q, want %q", c.name, arg, got, want)
			}
		}
	}
}

// TestServerBuiltWithProfile: go build optimises the server with the
// profile committed beside its main package (cmd/teammem-server/default.pgo,
// refreshed by `make pgo`), as the release archives are built; without it
// a search_memories call at 16 clients costs 6–11 % more CPU
// (docs/mcp.md).
func TestServerBuiltWithProfile(t *testing.T) {
	info, err := buildinfo.ReadFile(serverBin)
	if err != nil {
		t.Fatal(err)
	}
	pgo := ""
	for _, s := range info.Settings {
		if s.Key == "-pgo" {
			pgo = s.Value
		}
	}
	if filepath.Base(pgo) != "default.pgo" {
		t.Errorf("teammem-server built with -pgo=%q; want its default.pgo", pgo)
	}
}
