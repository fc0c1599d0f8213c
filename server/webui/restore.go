package webui

import (
	"context"
	"net/http"
	"slices"

	"github.com/teammem/teammem/internal/linediff"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// A restore takes two steps: the entry's history (or the repository's
// deleted entries) links to ~restore, a page that shows what the restore
// would change and asks to confirm it; its form posts to ~restore, which
// writes. No script runs in the UI, so the confirmation is a page of its
// own, not a dialog.

// restoreView is what the page confirming a restore shows.
type restoreView struct {
	Key       string
	From      server.Revision // the put whose content comes back
	Deleted   bool            // the entry is deleted now
	Unchanged bool            // the entry already holds that content
	Hunks     []linediff.Block
	Base      string // the repository's checksum, the restore's If-Match
}

// restorePage serves ~restore?key=K&version=V: what restoring version V
// of K (for a delete, the content it deleted) would change, and the form
// that does it. Only a caller who may write gets it.
func (u *UI) restorePage(r *http.Request, pg *page, repo string) (string, error) {
	ctx := r.Context()
	p := callerOf(ctx).p
	if !p.Can(repo, server.PermWrite) {
		return "", &server.ForbiddenError{Subject: p.Subject, Repo: repo, Need: server.PermWrite}
	}
	q := r.URL.Query()
	key := q.Get("key")
	version, err := httpkit.OptionalInt(q, "version")
	if err != nil {
		return "", err
	}
	from, err := u.restoreSource(ctx, p, repo, key, version)
	if err != nil {
		return "", err
	}
	st, err := u.svc.State(ctx, p, repo)
	if err != nil {
		return "", err
	}
	latest, err := u.svc.Revision(ctx, p, repo, key, 0)
	if err != nil {
		return "", err
	}
	v := restoreView{Key: key, From: from, Deleted: latest.Op == server.OpDelete, Base: st.Checksum}
	v.Unchanged = !v.Deleted && latest.Checksum == from.Checksum
	v.Hunks = lineDiff(latest.Content, from.Content) // a delete's content is empty
	pg.Title, pg.Data = "Restore "+key+"?", v
	return "restore", nil
}

// restoreSource is the put whose content restoring version of key brings
// back: that version, or for a delete the put before it.
func (u *UI) restoreSource(ctx context.Context, p server.Principal, repo, key string, version int64) (server.Revision, error) {
	rev, err := u.svc.Revision(ctx, p, repo, key, version)
	if err != nil || rev.Op != server.OpDelete {
		return rev, err
	}
	prev, err := u.svc.History(ctx, p, repo, key, rev.Version, 1)
	if err != nil {
		return server.Revision{}, err
	}
	if len(prev) == 0 || prev[0].Op != server.OpPut {
		return server.Revision{}, httpkit.NotFound("nothing to restore before this delete")
	}
	return u.svc.Revision(ctx, p, repo, key, prev[0].Version)
}

// restore serves POST ~restore, the confirmation page's form: it puts
// back the content of one version of an entry (for a delete, what it
// deleted) through the same Service write as the API's PUT, conditional
// on the repository not having changed since the page was shown, so it
// lands in the history as an edit by the signed-in subject, through the
// restore surface with the session as its credential.
func (u *UI) restore(w http.ResponseWriter, r *http.Request, repo string) error {
	if err := u.checkForm(r); err != nil {
		return err
	}
	ctx := r.Context()
	p := callerOf(ctx).p
	key, base := r.PostForm.Get("key"), r.PostForm.Get("base")
	version, err := httpkit.OptionalInt(r.PostForm, "version")
	if err != nil {
		return err
	}
	if base == "" {
		return server.InvalidBody("The restore form lacks the repository's checksum; reload the page.")
	}
	rev, err := u.restoreSource(ctx, p, repo, key, version)
	if err != nil {
		return err
	}
	prov, err := httpkit.Claims(r, server.SurfaceRestore, false)
	if err != nil {
		return err
	}
	in := server.PutInput{Entries: map[string]string{key: rev.Content}, IfMatch: server.TagList(base), Provenance: prov}
	res, err := u.svc.Put(ctx, p, repo, in)
	if err != nil {
		return err
	}
	u.metrics.RecordWrite(in, res)
	for _, sk := range res.Skipped {
		if sk.Of(key) {
			e := &restoreRefused{from: rev.Version, skipped: sk}
			u.logRefused(ctx, repo, e)
			return e
		}
	}
	f := flash{Repo: repo, Key: key, From: rev.Version, Unchanged: true}
	if slices.Contains(res.Changed, key) {
		f.Restored, f.Unchanged = res.State.Version, false
	}
	if err := u.setFlash(w, r, f); err != nil {
		return err
	}
	http.Redirect(w, r, entryURL(repo, key, 0), http.StatusSeeOther)
	return nil
}
