//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Paths of the binaries built once for the package by TestMain.
var (
	serverBin string
	agentBin  string
)

// overrideEnv names, per package, the variable that gives a prebuilt
// binary to test instead of building it (for example a release build).
var overrideEnv = map[string]string{
	"../cmd/teammem-server": "E2E_SERVER_BIN",
	"../cmd/teammem-agent":  "E2E_AGENT_BIN",
}

// builtVersion is linked into both programs as main.version, as `make
// build` links the release's.
const builtVersion = "v0.0.0-e2e"

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

// runMain builds both programs into a temporary folder, runs the tests and
// removes the folder.
func runMain(m *testing.M) int {
	bin, err := os.MkdirTemp("", "teammem-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(bin)
	serverBin, agentBin = filepath.Join(bin, "teammem-server"), filepath.Join(bin, "teammem-agent")
	for out, pkg := range map[string]string{serverBin: "../cmd/teammem-server", agentBin: "../cmd/teammem-agent"} {
		if prebuilt := os.Getenv(overrideEnv[pkg]); prebuilt != "" {
			if err := os.Symlink(prebuilt, out); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			continue
		}
		cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+builtVersion, "-o", out, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", pkg, err, msg)
			return 1
		}
	}
	return m.Run()
}
