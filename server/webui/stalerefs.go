package webui

import (
	"context"
	"errors"

	"github.com/teammem/teammem/server"
)

// staleView is an entry's stale-reference verdict as a page shows it.
// Every word of it is the UI's own but the reference, the paths and the
// branch, which html/template escapes: a report is a teammate's text.
type staleView struct {
	server.StaleReport
	Findings []staleLine
	Others   []staleOther
}

// staleLine is one finding, worded.
type staleLine struct {
	Reference string
	Line      int
	Why       string
}

// staleOther is a report of another commit that found otherwise, worded.
type staleOther struct {
	server.StaleReport
	Stale int    // the stale references it found
	Why   string // why it is not the verdict
}

// shortCommit is the first 12 hex digits of a commit.
func shortCommit(c string) string { return c[:min(len(c), 12)] }

// staleVerdict returns the verdict of the live entry key of repo, worded;
// nil when it has no report.
func (u *UI) staleVerdict(ctx context.Context, p server.Principal, repo, key string) (*staleView, error) {
	verdicts, err := u.svc.StaleReports(ctx, p, repo, key)
	if errors.Is(err, server.ErrNotFound) || len(verdicts) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return staleViews(verdicts)[0], nil
}

// staleWarnings returns the verdicts of repo's live entries that name
// stale references, by key, worded.
func (u *UI) staleWarnings(ctx context.Context, p server.Principal, repo string) ([]*staleView, error) {
	verdicts, err := u.svc.StaleWarnings(ctx, p, repo)
	if errors.Is(err, server.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return staleViews(verdicts), nil
}

// staleViews words verdicts.
func staleViews(verdicts []server.StaleVerdict) []*staleView {
	out := make([]*staleView, 0, len(verdicts))
	for _, r := range verdicts {
		v := &staleView{StaleReport: r.StaleReport}
		for _, f := range r.Findings {
			v.Findings = append(v.Findings, staleLine{Reference: f.Reference, Line: f.Line, Why: staleWhy(f)})
		}
		for _, o := range r.Others {
			v.Others = append(v.Others, staleOther{StaleReport: o.StaleReport, Stale: len(o.Findings), Why: standingWhy(o.Standing)})
		}
		out = append(out, v)
	}
	return out
}

// standingWhy says why a report of another commit is not the verdict.
func standingWhy(s server.Standing) string {
	switch s {
	case server.StandingOlder:
		return "an older checkout"
	case server.StandingOtherBranch:
		return "off the branch most teammates report from"
	case server.StandingUndated:
		return "its agent does not say when the commit was made"
	}
	return "no commit time tells them apart; reported before the one above"
}

// staleWhy says what is wrong with a reference, from its reason.
func staleWhy(f server.StaleFinding) string {
	switch f.Reason {
	case server.StaleMissing:
		why := "the path is not in the commit"
		if f.Since != "" {
			why += "; removed by commit " + shortCommit(f.Since)
		}
		if f.RenamedTo != "" {
			why += ", which moved it to " + f.RenamedTo
		}
		return why
	case server.StalePastEnd:
		return "the line range ends after the file's last line"
	case server.StaleNoSymbol:
		return "the file does not hold the symbol"
	case server.StaleNotFile:
		return "it names a folder where a file is meant, or a file where a folder is"
	}
	return "stale"
}
