package webui

import (
	"context"
	"errors"

	"github.com/teammem/teammem/server"
)

// staleView is an entry's latest stale-reference report as a page shows
// it. Every word of it is the UI's own but the reference and the paths,
// which html/template escapes: a report is a teammate's text.
type staleView struct {
	server.StaleReport
	Findings []staleLine
}

// staleLine is one finding, worded.
type staleLine struct {
	Reference string
	Line      int
	Why       string
}

// shortCommit is the first 12 hex digits of a commit.
func shortCommit(c string) string { return c[:min(len(c), 12)] }

// staleReports returns the latest report of each live entry of repo (of
// key alone when not ""), by key, worded.
func (u *UI) staleReports(ctx context.Context, p server.Principal, repo, key string) (map[string]*staleView, error) {
	reports, err := u.svc.StaleReports(ctx, p, repo, key)
	if errors.Is(err, server.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]*staleView, len(reports))
	for _, r := range reports {
		v := &staleView{StaleReport: r}
		for _, f := range r.Findings {
			v.Findings = append(v.Findings, staleLine{Reference: f.Reference, Line: f.Line, Why: staleWhy(f)})
		}
		out[r.Key] = v
	}
	return out, nil
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
