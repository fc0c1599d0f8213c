package deploytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDeployFilesUseRealFlags checks that every teammem-server flag the
// deploy files pass exists: it reads the flags from `serve --help`,
// `migrate --help` and `token create --help` of the real command.
func TestDeployFilesUseRealFlags(t *testing.T) {
	root := filepath.Join("..", "..")
	known := map[string]bool{}
	for _, args := range [][]string{{"serve", "--help"}, {"migrate", "--help"}, {"token", "create", "--help"}} {
		cmd := exec.Command("go", append([]string{"run", "./cmd/teammem-server"}, args...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("teammem-server %v: %v\n%s", args, err, out)
		}
		for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z][a-z-]*)`).FindAllStringSubmatch(string(out), -1) {
			known[m[1]] = true
		}
	}
	if !known["data-dir"] || !known["database-url"] {
		t.Fatalf("could not read the flags from --help: %v", known)
	}
	flagRE := regexp.MustCompile(`--([a-z][a-z-]*)`)
	for _, f := range []string{"docker-compose.yml", "deploy/teammem-server.service", "deploy/k8s/deployment.yaml", "deploy/Dockerfile"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "#") || strings.Contains(line, "systemctl") ||
				!strings.Contains(line, "teammem-server") && !strings.Contains(line, "- --") && !strings.Contains(line, `"--`) {
				continue // comments and flags of other tools (docker, systemctl, wget, pg_isready)
			}
			for _, m := range flagRE.FindAllStringSubmatch(line, -1) {
				switch m[1] {
				case "from", "chown", "build-arg", "target", "interval", "timeout", "retries", "start-period", "no-cache", "spider", "quiet", "tries":
					continue // Dockerfile, HEALTHCHECK and wget options
				}
				if !known[m[1]] {
					t.Errorf("%s passes --%s, which teammem-server does not have: %s", f, m[1], strings.TrimSpace(line))
				}
			}
		}
	}
}
