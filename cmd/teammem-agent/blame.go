package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

func init() {
	register(command{Name: "blame", Summary: "every line of a key with the version that introduced it, who wrote it and through what",
		Run: historyCommand("blame", "blame KEY [--version V] [flags]", 1, 1, runBlame)})
}

// maxBlameAuthor bounds the author column of blame's text output.
const maxBlameAuthor = 20

// runBlame prints every line of KEY (as it stood at --version) with the
// version that introduced it, its author, date and surface, then those
// versions with their provenance.
func runBlame(ctx context.Context, s *session, c *client.Client, h historyFlags, args []string) error {
	key := args[0]
	b, err := c.Blame(ctx, s.slug, key, h.version)
	if err != nil {
		return keyError(s, key, err)
	}
	if s.flags.json {
		s.out.object(b)
		return nil
	}
	if b.Op == api.OpDelete {
		fmt.Fprintf(s.e.Stdout, "%s was deleted at version %d; blame --version %d shows it as it was before\n",
			strconv.Quote(key), b.Version, b.Version-1)
		return nil
	}
	revs := make(map[int64]api.BlameRevision, len(b.Revisions))
	authorWidth, versionWidth := 0, 1
	for _, r := range b.Revisions {
		revs[r.Version] = r
		authorWidth = max(authorWidth, utf8.RuneCountInString(blameAuthor(r.Author)))
		versionWidth = max(versionWidth, len(strconv.FormatInt(r.Version, 10)))
	}
	for _, l := range b.Lines {
		r := revs[l.Version]
		surface := ""
		if r.Provenance.Surface != "" {
			surface = shown(r.Provenance.Surface)
		}
		fmt.Fprintf(s.e.Stdout, "%*d  %-*s  %s  %-7s | %s\n", versionWidth, l.Version, authorWidth, blameAuthor(r.Author),
			localDate(r.At), surface, l.Text)
	}
	if len(b.Revisions) > 0 {
		fmt.Fprintln(s.e.Stdout)
	}
	for _, r := range b.Revisions {
		fmt.Fprintf(s.e.Stdout, "version %d  %s  %s\n    %s\n", r.Version, localTime(r.At), whoWrote(r.Author, &r.Provenance),
			describeProvenance(&r.Provenance))
	}
	return nil
}

// blameAuthor is an author as blame's column shows it: escaped where it
// needs to be, cut to maxBlameAuthor characters.
func blameAuthor(a string) string {
	a = shown(a)
	if utf8.RuneCountInString(a) > maxBlameAuthor {
		a = string([]rune(a)[:maxBlameAuthor-1]) + "…"
	}
	return a
}

// localDate is a server timestamp's day in the local time zone.
func localDate(at string) string {
	t := localTime(at)
	if i := strings.IndexByte(t, ' '); i > 0 {
		return t[:i]
	}
	return t
}
