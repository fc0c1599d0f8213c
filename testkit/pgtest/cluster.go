package pgtest

import (
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Cluster is a PostgreSQL server of a test's own, started with
// scripts/pg.sh, that the test may freeze and thaw without disturbing the
// shared server other tests use.
type Cluster struct {
	URL string // admin URL
	dir string
}

// StartCluster starts a throwaway cluster on a free port and stops and
// removes it (thawed first) when the test ends. Without the PostgreSQL
// binaries the test is skipped, or fails when $CI is set.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "pg.sh")
	parent, err := os.MkdirTemp("", "teammem-pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o755); err != nil { // the postgres user must reach it
		t.Fatal(err)
	}
	c := &Cluster{dir: filepath.Join(parent, "pg")}
	env := append(os.Environ(), "TEAMMEM_PG_DIR="+c.dir, "TEAMMEM_PG_PORT="+strconv.Itoa(freePort(t)))
	t.Cleanup(func() {
		c.signal(syscall.SIGCONT)
		stop := osexec.Command(script, "stop")
		stop.Env = env
		if out, err := stop.CombinedOutput(); err != nil {
			t.Errorf("pg.sh stop: %v %s", err, out)
		}
		os.RemoveAll(parent)
	})
	start := osexec.Command(script, "start")
	start.Env = env
	out, err := start.Output()
	if err != nil {
		msg := fmt.Sprintf("pg.sh start: %v %s", err, errText(err))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	c.URL = strings.TrimSpace(string(out))
	return c
}

// Freeze stops the postmaster and every backend with SIGSTOP: connections
// stay open and nothing answers, as on a hung host.
func (c *Cluster) Freeze(t testing.TB) {
	t.Helper()
	if n := c.signal(syscall.SIGSTOP); n == 0 {
		t.Fatal("pgtest: no postgres process to freeze")
	}
}

// Thaw resumes the frozen processes with SIGCONT.
func (c *Cluster) Thaw() { c.signal(syscall.SIGCONT) }

// signal sends sig to the postmaster and its children and returns how many
// processes it signalled.
func (c *Cluster) signal(sig syscall.Signal) int {
	data, err := os.ReadFile(filepath.Join(c.dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0
	}
	pids := append([]int{pm}, children(pm)...)
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
	return len(pids)
}

// children lists the processes whose parent is pid, from /proc.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func errText(err error) string {
	if ee, ok := err.(*osexec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
