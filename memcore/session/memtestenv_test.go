package session

import (
	"testing"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/internal/memtest"
)

// memTestEnv returns a memcore.Env over a fresh temporary home, managed dir
// and working directory, with the environment vars given.
func memTestEnv(t *testing.T, vars map[string]string) memcore.Env {
	t.Helper()
	tr := memtest.NewTree(t)
	return memcore.Env{Home: tr.Home, ManagedDir: tr.ManagedDir, Cwd: tr.Cwd, Getenv: memtest.Getenv(vars), Now: memtest.Clock}
}
