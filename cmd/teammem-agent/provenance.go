package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/teammem/teammem/api"
)

// describeProvenance says through what a version was written, for log and
// blame: "via SURFACE, CLIENT, on MACHINE, at COMMIT, with CREDENTIAL",
// each part present only when recorded; "" from a server that records
// none.
func describeProvenance(p *api.Provenance) string {
	if p == nil {
		return ""
	}
	parts := []string{"via " + shown(p.Surface)}
	if p.Client != "" {
		parts = append(parts, shown(p.Client))
	}
	if p.Machine != "" {
		parts = append(parts, "on "+shown(p.Machine))
	}
	if p.Commit != "" {
		parts = append(parts, "at "+shortCommit(p.Commit))
	}
	if p.Credential != "" {
		parts = append(parts, "with "+shown(p.Credential))
	}
	return strings.Join(parts, ", ")
}

// whoWrote is a version's author, with the display name the server
// recorded.
func whoWrote(author string, p *api.Provenance) string {
	if p != nil && p.DisplayName != "" {
		return fmt.Sprintf("%s (%s)", strconv.Quote(author), shown(p.DisplayName))
	}
	return strconv.Quote(author)
}

// shown is s as printed to a terminal: as it is when it needs no escape,
// else quoted with its escapes (the server keeps no control characters,
// but an older server's answer may hold any).
func shown(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		return q
	}
	return s
}

// shortCommit is a commit id cut to 12 digits.
func shortCommit(c string) string {
	if len(c) > 12 {
		return shown(c[:12])
	}
	return shown(c)
}
