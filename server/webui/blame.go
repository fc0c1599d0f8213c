package webui

import (
	"net/http"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/blame"
	"github.com/teammem/teammem/server/httpkit"
)

// blameView is an entry's text line by line with the revision each line
// comes from.
type blameView struct {
	Key      string
	Revision server.Revision // the revision blamed
	Lines    []blameLine
	Origins  []server.Revision // the revisions the lines come from, oldest first
}

// blameLine is one line of a blame; First marks the first line of a run
// from one revision, which alone shows the revision.
type blameLine struct {
	N      int
	Text   string
	Origin server.Revision
	First  bool
}

// blamePage serves ~blame?key=K[&v=V]: the entry as it stood at version V
// (default: its newest revision), every line with the revision that
// introduced it and who wrote it through what.
func (u *UI) blamePage(r *http.Request, pg *page, repo string) (string, error) {
	ctx := r.Context()
	q := r.URL.Query()
	key := q.Get("key")
	version, err := httpkit.OptionalInt(q, "v")
	if err != nil {
		return "", err
	}
	b, err := blame.Of(ctx, u.svc, callerOf(ctx).p, repo, key, version)
	if err != nil {
		return "", err
	}
	v := blameView{Key: key, Revision: b.Revision, Origins: b.Origins}
	origins := make(map[int64]server.Revision, len(b.Origins))
	for _, o := range b.Origins {
		origins[o.Version] = o
	}
	for i, l := range b.Lines {
		v.Lines = append(v.Lines, blameLine{N: i + 1, Text: l.Text, Origin: origins[l.Version],
			First: i == 0 || b.Lines[i-1].Version != l.Version})
	}
	pg.Title, pg.Data = "Blame of "+key+" · "+repoName(repo), v
	return "blame", nil
}
