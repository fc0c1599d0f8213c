package webui

import (
	"html/template"
	"net/http"

	"github.com/teammem/teammem/internal/linediff"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// historyShown bounds the revisions an entry page lists.
const historyShown = 200

// entryView is what an entry's page shows.
type entryView struct {
	Key      string
	Shown    server.Revision      // the revision whose content is shown (a put)
	Meta     protocol.Frontmatter // the shown content's frontmatter, shown as metadata above the body
	Rendered template.HTML        // the shown content without its frontmatter
	Latest   server.Revision      // the newest revision (a delete when the entry is deleted)
	Deleted  bool
	History  []historyRow
	DiffFrom int64 // the diff form's defaults
	DiffTo   int64
	CanWrite bool
	Notice   *flash     // the outcome of the restore this session just made, to confirm it
	Stale    *staleView // the latest stale-reference report of the entry, nil when none
	Own      *ownKey    // the caller's open proposal that would change the entry, nil when none
	Before   int64      // the history page starts below this version (0: newest)
	Older    int64      // before for the next history page; 0: none
}

// historyRow is one revision in an entry's history.
type historyRow struct {
	server.Revision
	Previous   int64 // the version before it (0 for the first)
	Restorable bool  // a put whose content is not the live one
}

// entryPage serves ~entry?key=K[&v=V][&before=B]: the entry rendered and
// raw, at version V or its latest, with its history (a page of it, older
// than B when given) and restore buttons.
func (u *UI) entryPage(w http.ResponseWriter, r *http.Request, pg *page, repo string) (string, error) {
	ctx := r.Context()
	p := callerOf(ctx).p
	q := r.URL.Query()
	key := q.Get("key")
	want, err := httpkit.OptionalInt(q, "v")
	if err != nil {
		return "", err
	}
	before, err := httpkit.OptionalInt(q, "before")
	if err != nil {
		return "", err
	}
	// The newest two revisions: the latest, and the put before it when the
	// latest is a delete (a deleted key is not deleted again).
	head, err := u.svc.History(ctx, p, repo, key, 0, 2)
	if err != nil {
		return "", err
	}
	v := entryView{Key: key, Latest: head[0], Deleted: head[0].Op == server.OpDelete, CanWrite: p.Can(repo, server.PermWrite),
		Before: before}
	v.Notice = u.takeFlash(w, r, repo, key)
	own, err := u.ownProposals(ctx, p, repo)
	if err != nil {
		return "", err
	}
	v.Own = ownKeyOf(own, key)
	if !v.Deleted {
		if v.Stale, err = u.staleVerdict(ctx, p, repo, key); err != nil {
			return "", err
		}
	}
	if want == 0 {
		for _, rv := range head {
			if rv.Op == server.OpPut {
				want = rv.Version
				break
			}
		}
	}
	if want != 0 {
		if v.Shown, err = u.svc.Revision(ctx, p, repo, key, want); err != nil {
			return "", err
		}
		if v.Shown.Op != server.OpPut {
			return "", httpkit.NotFound("no content at this version of this entry")
		}
		u.svc.RecordServed(p, v.Shown.Repo, v.Shown.Version, server.ServedWeb, key)
		var body string
		v.Meta, body, _ = protocol.SplitFrontmatter(v.Shown.Content)
		v.Rendered = u.md.render(repo, key, body)
	}
	revs, err := u.svc.History(ctx, p, repo, key, before, historyShown+1)
	if err != nil {
		return "", err
	}
	for i, rv := range revs[:min(len(revs), historyShown)] {
		row := historyRow{Revision: rv, Restorable: rv.Op == server.OpPut && (v.Deleted || rv.Checksum != v.Latest.Checksum)}
		if i+1 < len(revs) {
			row.Previous = revs[i+1].Version
		}
		v.History = append(v.History, row)
	}
	if len(revs) > historyShown {
		v.Older = revs[historyShown-1].Version
	}
	if len(v.History) > 0 {
		v.DiffTo = v.History[0].Version
		v.DiffFrom = v.History[min(1, len(v.History)-1)].Version
	}
	pg.Title, pg.Data = key+" · "+repoName(repo), v
	return "entry", nil
}

// diffView is the comparison of two versions of an entry.
type diffView struct {
	Key      string
	From, To server.Revision
	Hunks    []linediff.Block
}

// diffPage serves ~diff?key=K&from=A&to=B: what changed from version A
// to version B (a delete compares as empty).
func (u *UI) diffPage(r *http.Request, pg *page, repo string) (string, error) {
	ctx := r.Context()
	p := callerOf(ctx).p
	q := r.URL.Query()
	key := q.Get("key")
	v := diffView{Key: key}
	for _, side := range []struct {
		param string
		rev   *server.Revision
	}{{"from", &v.From}, {"to", &v.To}} {
		n, err := httpkit.OptionalInt(q, side.param)
		if err != nil {
			return "", err
		}
		if *side.rev, err = u.svc.Revision(ctx, p, repo, key, n); err != nil {
			return "", err
		}
	}
	v.Hunks = lineDiff(v.From.Content, v.To.Content)
	pg.Title, pg.Data = "Changes to "+key, v
	return "diff", nil
}
