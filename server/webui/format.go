package webui

import (
	"html/template"
	"net/url"
	"strconv"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
)

// templateFuncs are the templates' helpers.
var templateFuncs = template.FuncMap{
	"repoURL":     repoURL,
	"repoName":    repoName,
	"orgOf":       protocol.OrgNamespace,
	"entryURL":    entryURL,
	"diffURL":     diffURL,
	"blameURL":    blameURL,
	"dec":         func(n int64) int64 { return n - 1 },
	"restoreURL":  restoreURL,
	"searchURL":   searchURL,
	"short":       shortCommit,
	"bytes":       humanBytes,
	"ago":         ago,
	"when":        func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"iso":         func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"feed":        newFeed,
	"proposalURL": proposalURL,
	"queueURL":    queueURL,
	"list":        func(s ...string) []string { return s },
	"fixable":     isFixable,
}

// repoURL is a repository's page.
func repoURL(repo string) string { return prefix + "/r/" + repo }

// entryURL is an entry's page, at version v when v > 0.
func entryURL(repo, key string, v int64) string {
	q := url.Values{"key": {key}}
	if v > 0 {
		q.Set("v", itoa(v))
	}
	return repoURL(repo) + "/~entry?" + q.Encode()
}

// diffURL is the page comparing two versions of an entry.
func diffURL(repo, key string, from, to int64) string {
	q := url.Values{"key": {key}, "from": {itoa(from)}, "to": {itoa(to)}}
	return repoURL(repo) + "/~diff?" + q.Encode()
}

// blameURL is the blame of an entry, as it stood at version v when v > 0.
func blameURL(repo, key string, v int64) string {
	q := url.Values{"key": {key}}
	if v > 0 {
		q.Set("v", itoa(v))
	}
	return repoURL(repo) + "/~blame?" + q.Encode()
}

// restoreURL is the page that asks to confirm the restore of version v of
// an entry (for a delete, of the content it deleted).
func restoreURL(repo, key string, v int64) string {
	q := url.Values{"key": {key}, "version": {itoa(v)}}
	return repoURL(repo) + "/~restore?" + q.Encode()
}

func humanBytes(n int64) string {
	switch {
	case n < 1000:
		return itoa(n) + " B"
	case n < 1000_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " kB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// ago says how long before now t was, roughly.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return itoa(int64(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return itoa(int64(d/time.Hour)) + " h ago"
	}
	return itoa(int64(d/(24*time.Hour))) + " days ago"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
