package webui

import "github.com/teammem/teammem/server"

// feedView is an activity feed of one repository.
type feedView struct {
	Repo  string
	Items []feedItem
	Next  int64
}

// feedItem is one version in a feed, with at most feedKeys keys named.
type feedItem struct {
	server.VersionActivity
	More int // keys changed or deleted but not named
}

// feedKeys bounds the keys named per version: a seed of 1,000 entries is
// one line, not 1,000 links.
const feedKeys = 8

// newFeed is the feed of one page of repo's activity.
func newFeed(repo string, p server.ActivityPage) feedView {
	f := feedView{Repo: repo, Next: p.Next}
	for _, it := range p.Items {
		fi := feedItem{VersionActivity: it}
		fi.Changed = it.Changed[:min(len(it.Changed), feedKeys)]
		fi.Deleted = it.Deleted[:min(len(it.Deleted), feedKeys-len(fi.Changed))]
		fi.More = len(it.Changed) + len(it.Deleted) - len(fi.Changed) - len(fi.Deleted)
		f.Items = append(f.Items, fi)
	}
	return f
}
