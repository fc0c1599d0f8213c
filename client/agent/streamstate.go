package agent

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/teammem/teammem/internal/atomicfile"
)

// StreamStatePath is the file where a running agent keeps the state of
// the event stream of the journal's repo, for status to show.
func StreamStatePath(journal string) string {
	return strings.TrimSuffix(journal, ".json") + ".stream.json"
}

// streamStateEvery bounds how often a state that differs only by its
// last event is written.
const streamStateEvery = 10 * time.Second

// StreamStateWriter returns a FollowOptions.OnState that keeps path up to
// date (atomically): every change of connection at once, the last event
// at most every 10 s. remove deletes the file (when run stops).
func StreamStateWriter(path string) (onState func(StreamState), remove func()) {
	var mu sync.Mutex
	var last StreamState
	var written time.Time
	onState = func(st StreamState) {
		mu.Lock()
		defer mu.Unlock()
		same := st.State == last.State && st.Reconnects == last.Reconnects && st.Error == last.Error
		if same && time.Since(written) < streamStateEvery {
			return
		}
		data, err := json.Marshal(st)
		if err == nil && atomicfile.Write(path, 0o600, atomicfile.Bytes(data)) == nil {
			last, written = st, time.Now()
		}
	}
	remove = func() {
		mu.Lock()
		defer mu.Unlock()
		os.Remove(path)
	}
	return onState, remove
}

// readStreamState reads what a running agent wrote; nil when nothing.
func readStreamState(path string) *StreamState {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var st StreamState
	if json.Unmarshal(data, &st) != nil {
		return nil
	}
	return &st
}
