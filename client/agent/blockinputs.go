package agent

import (
	"context"
	"os"
	"time"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/client/teamblock"
)

// inputsEvery is how often Run looks at the files outside the team folder
// that the blocks depend on (see blockInputs): a few stats, so that a
// commit, an edit of AGENTS.md or `add --assistants` reaches the blocks
// within seconds, however seldom the server is polled.
const inputsEvery = 2 * time.Second

// inputWatcher is a subscriber that keeps something in step with files
// outside the team folder too: Run asks it every inputsEvery whether they
// changed since its last update, and hands it the last cycle's end again
// when they did.
type inputWatcher interface {
	subscriber
	inputsChanged() bool
}

// blockInputs are the files outside the team folder whose change may
// change what the blocks' files are to hold: those of BlockConfig.Watch
// (the agent's configuration, which chooses the assistants), the first
// checkout's HEAD and branch (the stale warnings are checked against it),
// and in each checkout the files its assistants' files carry or are
// read by (AGENTS.md, Gemini CLI's settings). They are listed at each
// update of the blocks and stamped before anything is read for it, so
// that a change during the update is seen at the next look.
type blockInputs struct {
	files []string
	ids   []fileID
}

// list lists the inputs of the blocks of roots, chosen[co] being the
// assistants of checkout co, and stamps them.
func (in *blockInputs) list(watch, roots []string, chosen map[string][]assistants.Assistant) {
	files := append([]string(nil), watch...)
	if len(roots) > 0 {
		if co, err := gitremote.OpenCheckout(roots[0]); err == nil {
			files = append(files, co.HeadFiles()...)
		}
	}
	for _, co := range roots {
		for _, a := range chosen[co] {
			files = append(files, teamblock.Inputs(co, a)...)
		}
	}
	in.files = files
	in.restamp()
}

// restamp takes the files of the list as they are now for unchanged: an
// update of the blocks that stopped short (they could not be listed) is
// not tried again until one changes again.
func (in *blockInputs) restamp() {
	in.ids = make([]fileID, len(in.files))
	for i, f := range in.files {
		in.ids[i] = inputID(f)
	}
}

// changed reports whether a file of the list changed since it was stamped.
func (in *blockInputs) changed() bool {
	for i, f := range in.files {
		if inputID(f) != in.ids[i] {
			return true
		}
	}
	return false
}

// inputID identifies what a file looks like now, through a symbolic link
// as the assistants read it: a write, a rename over it, its creation or
// removal changes it (a missing file is the zero fileID).
func inputID(name string) fileID {
	fi, err := os.Stat(name)
	if err != nil {
		return fileID{}
	}
	return fileIDOf(fi)
}

// inputsChanged reports whether an input of the blocks changed since the
// last update.
func (b *blockWriter) inputsChanged() bool { return b.inputs.changed() }

// republish hands the last cycle's end again to every subscriber when
// the inputs of one outside the team folder changed (see inputWatcher),
// without syncing: as far as the engine knows, nothing changed in the
// folder or on the server since.
func (e *Engine) republish(ctx context.Context) {
	changed := false
	for _, s := range e.subscribers {
		if w, ok := s.(inputWatcher); ok && w.inputsChanged() {
			changed = true
		}
	}
	if !changed {
		return
	}
	var r Report
	c := e.cycleEnd(e.lastErr)
	c.idle = true
	for _, s := range e.subscribers {
		s.cycleDone(ctx, c, &r)
	}
	e.report(r)
}

// watchesInputs reports whether a subscriber has inputs outside the team
// folder for Run to look at.
func (e *Engine) watchesInputs() bool {
	for _, s := range e.subscribers {
		if _, ok := s.(inputWatcher); ok {
			return true
		}
	}
	return false
}
