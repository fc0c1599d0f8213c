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
// back. It reads the history of each key changed in the page, up to the
// page's newest version.
func (s *Service) markActivityRestores(ctx context.Context, repo string, page *ActivityPage) error {
	if len(page.Items) == 0 {
		return nil
	}
	upTo := page.Items[0].Version
	restores := map[string]map[int64]int64{} // key → version → version restored
	for _, it := range page.Items {
		for _, key := range it.Changed {
			if _, done := restores[key]; done {
				continue
			}
			revs, err := s.store.History(ctx, repo, key, upTo+1, 0)
			if err != nil {
				return err
			}
			deriveRestores(revs)
			restores[key] = map[int64]int64{}
			for _, r := range revs {
				if r.RestoreOf > 0 {
					restores[key][r.Version] = r.RestoreOf
				}
			}
		}
	}
	for i := range page.Items {
		it := &page.Items[i]
		for _, key := range it.Changed {
			if v := restores[key][it.Version]; v > 0 {
				if it.Restores == nil {
					it.Restores = map[string]int64{}
				}
				it.Restores[key] = v
			}
		}
	}
	return nil
}
