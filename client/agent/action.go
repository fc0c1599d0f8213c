package agent

// Action is what reconcile decided for one key (spec/agent.md §2).
type Action int

// The actions of a plan. "Local" is the team folder, "server" the repo on the
// server, "base" the checksum last agreed with the server (the journal).
const (
	// ActionInSync: local and server agree (both hold the same content or
	// neither holds the key); record base = server.
	ActionInSync Action = iota
	// ActionWriteLocal: write the server's content locally (the server
	// changed an unchanged local copy, or the key is new on the server).
	ActionWriteLocal
	// ActionDeleteLocal: the server deleted a key unchanged locally; delete
	// the local file.
	ActionDeleteLocal
	// ActionPush: upload the local content (changed or new locally, or lost
	// by the server).
	ActionPush
	// ActionPushDelete: soft-delete the key on the server (deleted locally,
	// unchanged on the server).
	ActionPushDelete
	// ActionMerge: both sides changed the key differently; try Merge3 on
	// base, local and server, and on overlapping edits keep the server's
	// version in place and save the local one as a conflict copy.
	ActionMerge
	// ActionRestore: deleted locally but edited on the server; the edit wins
	// and the server's version is written locally.
	ActionRestore
	// ActionResurrect: deleted on the server but edited locally; the edit
	// wins and the local version is pushed again.
	ActionResurrect
	// ActionSkip: the key is not valid (protocol.ValidateKey) or is a conflict
	// copy; nothing is written, pushed or deleted.
	ActionSkip
	// ActionHold: a deletion withheld by a safety rail; nothing moves and the
	// base is kept, so the key is decided again next time.
	ActionHold
)

var actionNames = [...]string{
	ActionInSync:      "in-sync",
	ActionWriteLocal:  "write-local",
	ActionDeleteLocal: "delete-local",
	ActionPush:        "push",
	ActionPushDelete:  "push-delete",
	ActionMerge:       "merge",
	ActionRestore:     "restore",
	ActionResurrect:   "resurrect",
	ActionSkip:        "skip",
	ActionHold:        "hold",
}

// String returns the action's name, for example "push-delete".
func (a Action) String() string {
	if a < 0 || int(a) >= len(actionNames) {
		return "unknown"
	}
	return actionNames[a]
}

// Pushes reports whether the action uploads local content.
func (a Action) Pushes() bool { return a == ActionPush || a == ActionResurrect }

// WritesLocal reports whether the action writes the server's content locally.
func (a Action) WritesLocal() bool { return a == ActionWriteLocal || a == ActionRestore }
