package e2e

import (
	"os"
	"os/exec"
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
