package agent

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// A file the agent replaced (renamed a new one over it) may still be
// written by a program that opened it just before: the assistant, an
// editor, a shell appending a line. Its write lands in a file no name
// points to any more. writeChecked reads the old file once right after the
// rename; the soak showed a writer descheduled between its open and its
// write long enough to miss that one look and lose its line. So the old
// file is kept open and looked at again for replacedWatchFor, every
// replacedCheckEvery while Run runs (and at the start of every cycle):
// whatever was written to it meanwhile is carried into the file that
// replaced it, as writeChecked does.
const (
	replacedWatchFor   = 5 * time.Second
	replacedCheckEvery = 200 * time.Millisecond
	// replacedMaxOpen bounds the old files held open at once (a pull of
	// thousands of files): past it the oldest is looked at a last time
	// and closed.
	replacedMaxOpen = 256
)

// replacedFile is one old file kept open after it was replaced.
type replacedFile struct {
	key     string
	f       *os.File
	seen    string // its content when last read
	written string // what replaced it
	until   time.Time
}

// replacedFiles are the old files the engine keeps watching. writeChecked
// adds to it from several goroutines at once (writeLocalAll).
type replacedFiles struct {
	mu    sync.Mutex
	files []*replacedFile
}

// add keeps f, the old file of key read as seen and replaced by written,
// open until replacedWatchFor from now.
func (rf *replacedFiles) add(key string, f *os.File, seen, written string, now time.Time) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	rf.files = append(rf.files, &replacedFile{key: key, f: f, seen: seen, written: written, until: now.Add(replacedWatchFor)})
}

// take returns the files whose watch ends now (all of them with all; those
// whose time is up, and the oldest over replacedMaxOpen) and those still
// watched, and keeps only the latter.
func (rf *replacedFiles) take(now time.Time, all bool) (ended, watched []*replacedFile) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	over := len(rf.files) - replacedMaxOpen
	for i, f := range rf.files {
		if all || i < over || now.After(f.until) {
			ended = append(ended, f)
		} else {
			watched = append(watched, f)
		}
	}
	rf.files = watched
	return ended, watched
}

// pending reports whether any old file is watched.
func (rf *replacedFiles) pending() bool {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	return len(rf.files) > 0
}

// checkReplacedFiles looks at every watched old file and carries what
// was written to it since it was last read into the file that replaced
// it (marking that file changed, for the next cycle to push); with
// closeAll (the engine stops) or once its watch ended, the old file is
// closed. It reports whether anything was carried, and failures as
// warnings: the old file is looked at again until its watch ends. It runs
// on the engine's goroutine.
func (e *Engine) checkReplacedFiles(closeAll bool) (carried bool, warnings []string) {
	ended, watched := e.replaced.take(time.Now(), closeAll)
	for _, f := range watched {
		c, err := e.carryLate(f)
		carried = carried || c
		if err != nil {
			warnings = append(warnings, err.Error())
		}
	}
	c, w := e.closeReplaced(ended)
	return carried || c, append(warnings, w...)
}

// closeReplaced looks at files a last time and closes them.
func (e *Engine) closeReplaced(files []*replacedFile) (carried bool, warnings []string) {
	for _, f := range files {
		c, err := e.carryLate(f)
		carried = carried || c
		if err != nil {
			warnings = append(warnings, err.Error())
		}
		f.f.Close()
	}
	return carried, warnings
}

// carryLate carries what was written to f's old file since it was last
// read into key's current file: appended bytes are appended to it; an old
// file rewritten otherwise is kept by keepLate.
func (e *Engine) carryLate(f *replacedFile) (bool, error) {
	now, err := readFrom0(f.f)
	if err != nil || now == f.seen {
		return false, err
	}
	if strings.HasPrefix(now, f.seen) {
		err = appendTo(e.cfg.Dir, f.key, afterLastLine(f.written, now[len(f.seen):]))
	} else {
		err = e.keepLate(f.key, f.written, f.seen, now)
	}
	if err != nil {
		return false, fmt.Errorf("keep what was written to %q as the agent replaced it: %w", f.key, err)
	}
	f.seen = now
	e.local.changed(f.key)
	return true, nil
}
