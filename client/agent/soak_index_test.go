//go:build soak

package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
)

// TestSoakIndexAppends is issue 29's lost MEMORY.md line under load (go
// test -tags soak -run TestSoakIndexAppends ./client/agent/): one program
// appends 300 lines to MEMORY.md (O_APPEND, every 200 µs) while a teammate
// appends to the server's and the engine syncs in a loop. It lost 20–68 of
// the 300 lines while the agent replaced the index by renaming a new file
// over it (a line written through a descriptor opened before the rename
// went into the old file); now that an index the agent extends is
// appended to (writeChecked) it loses none. The fast,
// deterministic versions are TestIndexLineAppendedDuring*.
func TestSoakIndexAppends(t *testing.T) {
	r := newRig(t, map[string]string{"MEMORY.md": "- base\n"}, nil, nil)
	r.sync(t)
	path := filepath.Join(r.dir, "MEMORY.md")
	done := make(chan struct{})
	var mine []string
	go func() {
		defer close(done)
		for i := range 300 {
			line := fmt.Sprintf("- local %d\n", i)
			mine = append(mine, line)
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				t.Error(err)
				return
			}
			f.WriteString(line)
			f.Close()
			time.Sleep(200 * time.Microsecond)
		}
	}()
	i := 0
	for running := true; running; i++ {
		select {
		case <-done:
			running = false
		default:
		}
		r.remote.mu.Lock()
		cur := r.remote.entries["MEMORY.md"]
		r.remote.apply(api.PutRequest{Entries: map[string]string{"MEMORY.md": cur + fmt.Sprintf("- remote %d\n", i)}})
		r.remote.mu.Unlock()
		r.engine.Sync(t.Context())
	}
	for range 3 {
		if _, err := r.engine.Sync(t.Context()); err != nil {
			t.Log("final sync:", err)
		}
	}
	loc, _ := os.ReadFile(path)
	lostLocal := 0
	for _, l := range mine {
		if !strings.Contains(string(loc), l) {
			lostLocal++
		}
	}
	t.Log("lost locally:", lostLocal)
	srv := r.remote.snapshot()["MEMORY.md"]
	lost := 0
	for _, l := range mine {
		if !strings.Contains(srv, l) {
			lost++
		}
	}
	t.Logf("%d cycles, %d of %d local lines lost", i, lost, len(mine))
	if lost > 0 {
		t.Fail()
	}
}
