package server

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
)

// Stale-reference reports: an agent checks the code references of a
// repository's topics against its checkout's HEAD (client/refcheck) and
// reports what it found for the entries whose content it checked, so the
// web UI can show it. The store keeps each entry's reports by commit and
// reporter (StaleReportsKept of them); what is shown is the verdict of
// the newest commit (staleverdict.go). A report is a teammate's text
// shown to others: every field is bounded and checked here, and nothing
// free-form is kept (the UI words each finding from its reason).

// Report limits.
const (
	MaxStaleReportEntries = 1000 // entries per request
	MaxStaleFindings      = 64   // findings per entry (memcore/refs.MaxRefs references per topic)
	MaxStaleReference     = 200  // bytes of a reference as written (memcore/refs.MaxRefText)
	MaxStaleLine          = 10_000_000
)

// The reasons a reference is stale (client/refcheck's).
const (
	StaleMissing  = "missing"   // the path is not in the commit's tree
	StalePastEnd  = "past-end"  // the line range ends after the file's last line
	StaleNoSymbol = "no-symbol" // the file does not hold the symbol
	StaleNotFile  = "not-file"  // a line range or symbol names a folder, or a folder reference a file
)

var staleReasons = []string{StaleMissing, StalePastEnd, StaleNoSymbol, StaleNotFile}

// Per-entry refusals of a report.
const (
	// ReasonNotCurrent: the key is not live, or its live content is not the
	// content the report was made from.
	ReasonNotCurrent Reason = "not_current"
	// ReasonInvalidFinding: a finding is malformed or over a bound.
	ReasonInvalidFinding Reason = "invalid_finding"
)

// StaleFinding is one stale reference of a topic.
type StaleFinding struct {
	Reference string // as written in the topic (`client/push.go:RetryPush`)
	Line      int    // the topic's line holding it (1-based; 0 unknown)
	Reason    string // one of the Stale* reasons
	Since     string // a missing path: the commit that removed it ("" unknown)
	RenamedTo string // and where that commit moved it ("" not a rename)
}

// StaleReport is one reporter's report of one entry at one commit.
type StaleReport struct {
	Repo    string
	Key     string
	Version int64  // the entry's version whose content was checked
	Commit  string // the checkout's HEAD it was checked against
	// CommittedAt is the commit's committer time as the reporter's agent
	// read it, no later than At (zero: the agent did not say); Branch the
	// branch the checkout was on ("" unknown or detached HEAD).
	CommittedAt time.Time
	Branch      string
	Reporter    string // the subject that reported it
	At          time.Time
	Findings    []StaleFinding // none: every reference held
	// Current says Version is the entry's live version (filled by the
	// Service; a store leaves it false).
	Current bool
}

// StaleReportInput is one agent's report: for each entry, the checksum of
// the content it checked and what it found, at one commit (with its
// committer time and branch, when the agent gives them).
type StaleReportInput struct {
	Commit      string
	CommittedAt time.Time
	Branch      string
	Entries     map[string]StaleEntryInput
}

// StaleEntryInput is one entry of a report.
type StaleEntryInput struct {
	Checksum string
	Findings []StaleFinding
}

// StaleReportResult says which entries' reports were recorded and which
// were left out (ReasonInvalidKey, ReasonNotCurrent, ReasonInvalidFinding).
type StaleReportResult struct {
	Recorded []string // sorted
	Skipped  []Skipped
}

// commitPattern is a git object name: SHA-1 or SHA-256, lowercase hex.
var (
	commitPattern      = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)
	shortCommitPattern = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
	refPathPattern     = regexp.MustCompile(`^[A-Za-z0-9_./+\-]{1,200}$`)
)

// Check reports a finding no checker makes: an unknown reason, a
// reference that is empty, too long or holds a character that hides or
// reorders what is shown (hiddenInText), a line out of range, a commit or
// path of the wrong shape.
func (f StaleFinding) Check() error {
	switch {
	case !slices.Contains(staleReasons, f.Reason):
		return fmt.Errorf("reason %.40q is not one of %s", f.Reason, strings.Join(staleReasons, ", "))
	case f.Reference == "" || len(f.Reference) > MaxStaleReference || !utf8.ValidString(f.Reference) ||
		strings.ContainsFunc(f.Reference, hiddenInText):
		return fmt.Errorf("reference %.40q is not 1 to %d bytes of printable UTF-8", f.Reference, MaxStaleReference)
	case f.Line < 0 || f.Line > MaxStaleLine:
		return fmt.Errorf("line %d is out of range", f.Line)
	case f.Since != "" && !shortCommitPattern.MatchString(f.Since):
		return fmt.Errorf("since %.40q is not a commit (7 to 64 lowercase hex digits)", f.Since)
	case f.RenamedTo != "" && !refPathPattern.MatchString(f.RenamedTo):
		return fmt.Errorf("renamedTo %.40q is not a repository path", f.RenamedTo)
	case f.RenamedTo != "" && f.Reason != StaleMissing:
		return fmt.Errorf("renamedTo is given for a %s finding; only a missing path moves", f.Reason)
	}
	return nil
}

// ReportStale records a report of repo's entries (a write grant: a report
// is shown to everyone who reads the repository). An entry is recorded
// only when its key is live with the content the report names, so a
// report never speaks of content the repository does not hold; the others
// are skipped, and the rest recorded, each as the reporter's report at
// the commit (replacing the one it made there before). Errors: an invalid
// repo, commit, committer time, branch or body (a *RequestError),
// ErrForbidden, the store's.
func (s *Service) ReportStale(ctx context.Context, p Principal, repo string, in StaleReportInput) (StaleReportResult, error) {
	canon, err := s.authorize(p, repo, PermWrite)
	if err != nil {
		return StaleReportResult{}, err
	}
	at := s.cfg.Now().UTC()
	if in, err = checkReportCommit(in, at); err != nil {
		return StaleReportResult{}, err
	}
	if len(in.Entries) > MaxStaleReportEntries {
		return StaleReportResult{}, invalidf(ReasonInvalidBody, "at most %d entries may be reported at once, not %d", MaxStaleReportEntries, len(in.Entries))
	}
	var res StaleReportResult
	skip := func(k string, r Reason, format string, a ...any) {
		res.Skipped = append(res.Skipped, Skipped{Key: k, Reason: r, Message: fmt.Sprintf(format, a...)})
	}
	valid := map[string]StaleEntryInput{}
	for k, e := range in.Entries {
		if err := protocol.ValidateKey(k); err != nil {
			skip(k, ReasonInvalidKey, "%s", keyMessage(err))
			continue
		}
		if len(e.Findings) > MaxStaleFindings {
			skip(k, ReasonInvalidFinding, "%q: at most %d findings per entry, not %d", k, MaxStaleFindings, len(e.Findings))
			continue
		}
		bad := ""
		for i, f := range e.Findings {
			if err := f.Check(); err != nil {
				bad = fmt.Sprintf("%q: finding %d: %v", k, i+1, err)
				break
			}
		}
		if bad != "" {
			skip(k, ReasonInvalidFinding, "%s", bad)
			continue
		}
		valid[k] = e
	}
	var reports []StaleReport
	if len(valid) > 0 {
		snap, err := s.store.Snapshot(ctx, canon, ReadOptions{})
		if err != nil && !isNotFound(err) {
			return StaleReportResult{}, err
		}
		live := make(map[string]Entry, len(snap.Live))
		for _, e := range snap.Live {
			live[e.Key] = e
		}
		for k, e := range valid {
			cur, ok := live[k]
			if !ok || cur.Checksum != e.Checksum {
				skip(k, ReasonNotCurrent, "%q is not live with the content checked (a deleted key, or content changed since: sync and check again)", k)
				continue
			}
			reports = append(reports, StaleReport{Repo: canon, Key: k, Version: cur.Version, Commit: in.Commit,
				CommittedAt: in.CommittedAt, Branch: in.Branch, Reporter: p.Subject, At: at, Findings: slices.Clone(e.Findings)})
			res.Recorded = append(res.Recorded, k)
		}
	}
	if len(reports) > 0 {
		slices.SortFunc(reports, func(a, b StaleReport) int { return strings.Compare(a.Key, b.Key) })
		if err := s.store.SaveStaleReports(ctx, canon, reports); err != nil {
			return StaleReportResult{}, fmt.Errorf("save stale-reference reports: %w", err)
		}
	}
	slices.Sort(res.Recorded)
	slices.SortFunc(res.Skipped, func(a, b Skipped) int { return strings.Compare(a.Key, b.Key) })
	return res, nil
}

// StaleQuery selects the entries whose stale-reference reports are read:
// Key alone when not ""; with Stale, only those of which some report
// names a stale reference (the others' verdict is that every reference
// held).
type StaleQuery struct {
	Key   string
	Stale bool
}

// StaleReports returns the verdict of each live entry of repo (of key
// alone when not ""), sorted by key (see staleverdict.go), each marked
// Current when it was made from the entry's live version. Reports of
// deleted keys are left out. A reference stored before ReportStale
// refused hidden characters has them escaped (escapeHidden). Errors: an
// invalid repo or key, ErrForbidden, the store's.
func (s *Service) StaleReports(ctx context.Context, p Principal, repo, key string) ([]StaleVerdict, error) {
	return s.staleVerdicts(ctx, p, repo, StaleQuery{Key: key})
}

// StaleWarnings returns the verdicts of repo's live entries that name
// stale references, sorted by key: what StaleReports returns of them,
// without reading the reports of the entries no report finds stale.
// Errors: an invalid repo, ErrForbidden, the store's.
func (s *Service) StaleWarnings(ctx context.Context, p Principal, repo string) ([]StaleVerdict, error) {
	all, err := s.staleVerdicts(ctx, p, repo, StaleQuery{Stale: true})
	return slices.DeleteFunc(all, func(v StaleVerdict) bool { return len(v.Findings) == 0 }), err
}

// staleVerdicts returns the verdicts of the live entries of repo that q
// selects.
func (s *Service) staleVerdicts(ctx context.Context, p Principal, repo string, q StaleQuery) ([]StaleVerdict, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return nil, err
	}
	if q.Key != "" {
		if err := protocol.ValidateKey(q.Key); err != nil {
			return nil, invalidf(ReasonInvalidKey, "%s", keyMessage(err))
		}
	}
	reports, err := s.store.StaleReports(ctx, canon, q)
	if err != nil || len(reports) == 0 {
		return nil, err
	}
	live, err := s.liveVersions(ctx, canon, q.Key)
	if err != nil {
		return nil, err
	}
	kept := reports[:0]
	for _, r := range reports {
		if _, ok := live[r.Key]; !ok {
			continue
		}
		for i, f := range r.Findings {
			r.Findings[i].Reference = escapeHidden(f.Reference)
		}
		kept = append(kept, r)
	}
	out := staleVerdicts(kept)
	for i := range out {
		out[i].Current = out[i].Version == live[out[i].Key]
	}
	return out, nil
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// liveVersions returns the version of each live entry of repo, of key
// alone when not "" (its newest revision, without reading the others).
func (s *Service) liveVersions(ctx context.Context, repo, key string) (map[string]int64, error) {
	if key != "" {
		revs, err := s.store.History(ctx, repo, key, 0, 1)
		if isNotFound(err) || (err == nil && (len(revs) == 0 || revs[0].Op != OpPut)) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return map[string]int64{key: revs[0].Version}, nil
	}
	snap, err := s.store.Snapshot(ctx, repo, ReadOptions{})
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	live := make(map[string]int64, len(snap.Live))
	for _, e := range snap.Live {
		live[e.Key] = e.Version
	}
	return live, nil
}

// hiddenInText reports a character that free text shown to others may not
// hold: a C0 or C1 control, a line or paragraph separator, or a
// bidirectional control (protocol.IsBidiControl, the keys' predicate),
// which would show the text around it reordered.
func hiddenInText(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || protocol.IsBidiControl(r)
}

// escapeHidden writes each hiddenInText character of s as its \u escape,
// so that it shows as what it is rather than reordering the text.
func escapeHidden(s string) string {
	if !strings.ContainsFunc(s, hiddenInText) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hiddenInText(r) {
			fmt.Fprintf(&b, "\\u%04X", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
