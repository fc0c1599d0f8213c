package server

import "context"

// A restore has no record of its own: it is a put like any other. It is
// told from the history instead: a put whose checksum an earlier put of
// the same key held, other than the revision right before it, brings back
// that content. (A put equal to the live content is not a change, so a
// content that comes again after a delete or another content is the only
// way two puts of a key share a checksum.) Restore names the newest such
// version: the one a person would name to restore it again.

// deriveRestores sets RestoreOf on every put of revs that restores an
// earlier version. revs are one key's revisions, newest first, reaching
// back to its first revision (a put can only be told a restore of a
// version revs hold).
func deriveRestores(revs []Revision) {
	newest := map[string]int64{} // checksum → the newest put holding it, oldest first
	for i := len(revs) - 1; i >= 0; i-- {
		r := &revs[i]
		if r.Op != OpPut {
			continue
		}
		if v, ok := newest[r.Checksum]; ok && (i == len(revs)-1 || v != revs[i+1].Version) {
			r.RestoreOf = v
		}
		newest[r.Checksum] = r.Version
	}
}

// markRestores sets RestoreOf on the puts of page (a key's revisions
// newest first, at most limit of them) that restore an earlier version,
// reading the revisions older than the page when it may not reach the
// key's first one.
func (s *Service) markRestores(ctx context.Context, repo, key string, page []Revision, limit int) error {
	all := page
	if len(page) > 0 && len(page) >= limit {
		older, err := s.store.History(ctx, repo, key, page[len(page)-1].Version, 0)
		if err != nil {
			return err
		}
		all = append(append(make([]Revision, 0, len(page)+len(older)), page...), older...)
	}
	deriveRestores(all)
	for i := range page {
		page[i].RestoreOf = all[i].RestoreOf
	}
	return nil
}

// markActivityRestores fills Restores on the items of a page of activity:
// for each key a version changed, the version whose content it brought
// back. It reads, at once, the revisions older than the page of the keys
// the page changed (the page's own revisions came with it): for a page
// of new keys that is one probe of the primary key each.
func (s *Service) markActivityRestores(ctx context.Context, repo string, page *ActivityPage) error {
	histories := map[string][]Revision{} // the page's revisions by key, newest first
	changed := map[string]bool{}
	var keys []string // the keys the page changed
	for _, r := range page.Revisions {
		histories[r.Key] = append(histories[r.Key], r)
		if r.Op == OpPut && !changed[r.Key] {
			changed[r.Key] = true
			keys = append(keys, r.Key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	oldest := page.Items[len(page.Items)-1].Version
	older, err := s.store.Histories(ctx, repo, keys, oldest)
	if err != nil {
		return err
	}
	item := make(map[int64]*VersionActivity, len(page.Items))
	for i := range page.Items {
		item[page.Items[i].Version] = &page.Items[i]
	}
	for _, key := range keys {
		revs := append(histories[key], older[key]...)
		deriveRestores(revs)
		for _, r := range revs {
			if it := item[r.Version]; it != nil && r.RestoreOf > 0 {
				if it.Restores == nil {
					it.Restores = map[string]int64{}
				}
				it.Restores[key] = r.RestoreOf
			}
		}
	}
	return nil
}
