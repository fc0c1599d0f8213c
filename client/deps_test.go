package client_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the SDK light: the standard library and package api.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	allowed := map[string]bool{"github.com/teammem/teammem/api": true, "github.com/teammem/teammem/client": true}
	for _, pkg := range strings.Fields(string(out)) {
		if !allowed[pkg] {
			t.Errorf("client depends on %s; it may import only api and the standard library", pkg)
		}
	}
}
