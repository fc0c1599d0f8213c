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
// (docs/mcp.md). The agent is not built with one.
func TestServerBuiltWithProfile(t *testing.T) {
	for _, c := range []struct {
		bin, name string
		want      bool
	}{{serverBin, "teammem-server", true}, {agentBin, "teammem-agent", false}} {
		info, err := buildinfo.ReadFile(c.bin)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		pgo := ""
		for _, s := range info.Settings {
			if s.Key == "-pgo" {
				pgo = s.Value
			}
		}
		if got := filepath.Base(pgo) == "default.pgo"; got != c.want {
			t.Errorf("%s built with -pgo=%q; want a default.pgo: %v", c.name, pgo, c.want)
		}
	}
}
