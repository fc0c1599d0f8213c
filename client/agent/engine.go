package agent

import (
	"errors"
	"fmt"
	"time"
)

// Engine defaults (spec/agent.md §3, cli.md).
const (
	DefaultPoll            = 60 * time.Second
	DefaultSafetyPoll      = 5 * time.Minute
	DefaultRescan          = time.Hour
	DefaultShutdownTimeout = 5 * time.Second
	// maxConflictRetries bounds the 412 → reconcile → push loop of a cycle.
	maxConflictRetries = 5
)

// ErrPushBlocked is wrapped by a cycle's error when the server refused the
// token (401) or the grant (403): the engine stops pushing, keeps watching,
// and local edits stay for a restart with a good token.
var ErrPushBlocked = errors.New("pushing stopped")

// ErrIncomplete is wrapped by a cycle's error when some keys could not be
// written, deleted or merged locally (a folder or a link in the way, a name
// too long): each is named in the report's warnings and left as it was,
// its journal entry unchanged, while every other change was applied and
// pushed. Run carries on as after a success; the keys are tried again by
// the next cycle.
var ErrIncomplete = errors.New("some keys could not be applied locally")

// ErrServerLostData is wrapped by a cycle's error when the server no longer
// has the repo (404) or its version went back below the version the
// journal last synced: the server lost data. The engine then pushes
// nothing for the repo (re-uploading everything, or deleting locally what
// the server no longer lists, would be a guess); `sync --reseed`
// (Config.Reseed) uploads the folder.
var ErrServerLostData = errors.New("the server lost this repo's data")

// Config is what an Engine syncs and how.
type Config struct {
	// Remote is the server; Repo the canonical slug; Dir the team folder.
	Remote Remote
	Repo   string
	Dir    string
	// Journal is the repo's journal, opened by the caller (who reports an
	// ErrCorruptJournal and passes the empty journal it came with).
	Journal *Journal
	// Host names this machine in conflict copies.
	Host string
	// Head, when set, returns the HEAD commit of the checkout the folder
	// serves ("" when it has none), read before each push and recorded in
	// the provenance of the versions it makes.
	Head func() string
	// Scan tunes which local files are candidates.
	Scan ScanOptions
	// Rails tunes the deletion safety rails.
	Rails Rails
	// BatchBytes bounds a push request's content; 0 means DefaultBatchBytes.
	BatchBytes int
	// Watch, when set, makes Run watch Dir (Debounce, MaxDelay as in
	// package watch); otherwise Run only polls and rescans.
	Watch              bool
	Debounce, MaxDelay time.Duration
	// Poll is the pull interval; 0 means DefaultPoll. Rescan is the full
	// rescan interval; 0 means DefaultRescan.
	Poll, Rescan time.Duration
	// Events, when set, makes Run follow the repo's event stream: it pulls
	// when a version newer than its view is announced, and while the
	// stream is connected it polls only every SafetyPoll (0 means
	// DefaultSafetyPoll); while the stream is down it polls every Poll.
	Events     EventSource
	SafetyPoll time.Duration
	// Follow tunes the stream's follower (its OnState reports the stream's
	// state).
	Follow FollowOptions
	// ShutdownTimeout bounds the final push on cancellation; 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Backoff is the first retry delay, doubled per failure with jitter up
	// to MaxBackoff; 0 means 1 s and 5 min.
	Backoff, MaxBackoff time.Duration
	// Block says which checkouts' CLAUDE.local.md hold the team memory
	// block, updated after every cycle; none means no block.
	Block BlockConfig
	// OnReport receives the report of every cycle that did or said
	// something; called on the engine's goroutine. May be nil.
	OnReport func(Report)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Consolidation names the memory folder whose consolidation lock
	// holds pushes while a consolidation rewrites it (see
	// ConsolidationWatch); the zero value watches none.
	Consolidation ConsolidationWatch
	// Reseed accepts a server that lost the repo's data (see
	// ErrServerLostData): the folder is reconciled three-way with the
	// journal as base against what the server still has, and pushed.
	Reseed bool
	// TokenExpiry, when set, says when the token the Remote sends expires
	// (ok false: unknown). From ExpiryWarning ahead, a cycle's report says
	// so once per expiry (Report.Token) with Relogin, what gets a new token
	// ("run teammem-agent login --server URL"); once the server refuses the
	// token, it dates the block's out-of-date note.
	TokenExpiry func() (exp time.Time, ok bool)
	Relogin     string
}

// Engine keeps one team folder and one repo in step. Its state is owned by
// the goroutine that calls Run, Sync, Pull or Push; none of them may run
// concurrently.
type Engine struct {
	cfg   Config
	view  serverView
	local *localView
	// settled says the last cycle ended without error, so that a pull
	// answered 304 with no local change has nothing to do.
	settled bool
	// idle says the current cycle ended at once for that reason: neither
	// the server's view nor the folder changed (see cycleEnd).
	idle bool
	// saved says the journal was saved once; afterwards only a changed
	// journal is written.
	saved      bool
	maxEntries int    // the server's live-entry limit, once a 413 told it
	blocked    string // why pushing stopped (401/403), "" while allowed
	// unreadable says the last pull was refused the repository (401 or
	// 403); the cycle's end tells the subscribers (the block is kept out
	// of the checkouts until a pull succeeds).
	unreadable bool
	// refusedAt is when the server started refusing the token (401) to
	// the pulls, zero while it accepts it: the block stays, rendered from
	// the team folder on disk (see cycleEnd.unsynced).
	refusedAt time.Time
	// expirySaid is the token expiry the last warning was about.
	expirySaid time.Time
	// kept is what the engine keeps from the server: entries it refused,
	// index lines that link a file not shared.
	kept withholding
	// noHistoryLookup says the server cannot look up its history (older
	// than POST /api/v1/seen); see oldCopies.
	noHistoryLookup bool
	// skipsSaid holds the local files that may not be pushed as the last
	// cycle that scanned the folder found them, and skipsNow those the
	// current cycle found (see skipNew).
	skipsSaid, skipsNow map[string]string
	// onLocalChange, when set (by tests), is called with each key once its
	// file was written or removed; it may be called from several
	// goroutines at once.
	onLocalChange func(key string)
	// replaced holds the old files of those the engine replaced lately,
	// watched for a late writer (see replacedFiles).
	replaced replacedFiles
	// subscribers consume the end of every cycle (see subscriber), and
	// recheck says the periodic rescan ran since the last cycle's end.
	subscribers []subscriber
	recheck     bool
	// cons holds pushes while a consolidation rewrites the memory folder.
	cons *consolidation
	// lastErr is the error of the last cycle that reached its end (nil
	// after a success), for the subscribers told again (republish).
	lastErr error
}

// New returns an engine; it does no I/O.
func New(cfg Config) (*Engine, error) {
	if cfg.Remote == nil || cfg.Journal == nil || cfg.Repo == "" || cfg.Dir == "" {
		return nil, fmt.Errorf("new engine: Remote, Journal, Repo and Dir are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	setDefault(&cfg.Poll, DefaultPoll)
	setDefault(&cfg.SafetyPoll, DefaultSafetyPoll)
	setDefault(&cfg.Rescan, DefaultRescan)
	setDefault(&cfg.ShutdownTimeout, DefaultShutdownTimeout)
	setDefault(&cfg.Backoff, time.Second)
	setDefault(&cfg.MaxBackoff, 5*time.Minute)
	e := &Engine{cfg: cfg, local: newLocalView(cfg.Scan), cons: newConsolidation(cfg.Consolidation, cfg.Journal.Path())}
	e.subscribe()
	return e, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// saveJournal writes the journal at the end of the engine's first cycle
// and, afterwards, whenever it changed.
func (e *Engine) saveJournal() error {
	if e.saved && !e.cfg.Journal.changed {
		return nil
	}
	if err := e.cfg.Journal.Save(); err != nil {
		return err
	}
	e.saved = true
	return nil
}

// report hands a non-empty report to OnReport.
func (e *Engine) report(r Report) {
	if e.cfg.OnReport != nil && !r.Empty() {
		e.cfg.OnReport(r)
	}
}
