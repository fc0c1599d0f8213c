package memcore

import (
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/memcore/internal/memtest"
)

// memTestEnv returns an Env over a fresh temporary home, managed dir and
// working directory, with the environment vars given.
func memTestEnv(t *testing.T, vars map[string]string) Env {
	t.Helper()
	tr := memtest.NewTree(t)
	return Env{Home: tr.Home, ManagedDir: tr.ManagedDir, Cwd: tr.Cwd, Getenv: memtest.Getenv(vars), Now: memtest.Clock}
}

// pathSep is the path separator as a string.
const pathSep = string(filepath.Separator)
