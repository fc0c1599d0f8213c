package server

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A subject names who a token is for: it is the author of every revision
// the token writes, the owner of its personal memory and what `token
// revoke --subject` names, and the web UI shows it to teammates. Two
// subjects that read alike would be two people who look like one, so the
// server's own tokens carry only subjects of one grammar (CheckSubject).
// The grammar is checked where a subject is minted (`token create`, the
// first start's admin token, auth.Issuer), never when a token is verified:
// a token issued before the rule keeps working until it expires or is
// revoked.

// Reserved subjects.
const (
	// OIDCSubjectPrefix starts the subject of every OIDC-signed token
	// ("oidc:" and the identity provider's sub), so that no subject the
	// server mints is an OIDC user's.
	OIDCSubjectPrefix = "oidc:"
	// AnonymousSubject is the caller of a server run without
	// authentication (--insecure-no-auth).
	AnonymousSubject = "anonymous"
)

// MaxSubjectBytes is the longest subject the server mints (an e-mail
// address is at most 254 bytes).
const MaxSubjectBytes = 254

// subjectPunct is the ASCII punctuation a subject may hold between its
// letters and digits: enough for e-mail addresses and bot names.
const subjectPunct = ".-_@+"

// CheckSubject reports why subject may not be minted into a token, nil
// when it may. A subject is 1 to MaxSubjectBytes bytes of UTF-8 in NFKC
// (so no full-width or other compatibility look-alike) made of letters, marks and decimal digits of any script and the ASCII
// characters . - _ @ +, starting with a letter or a digit and ending with
// a letter, mark or digit: no space of any kind, no control or format
// character (bidirectional controls included), no other punctuation. The
// letters on either side of the last "@" are each of one script, or of
// one of the mixes a language writes (Latin with Han, Hiragana and
// Katakana; with Han and Bopomofo; with Han and Hangul): a Cyrillic "а" in
// a Latin "аna" reads as "ana" and is refused. The OIDC prefix (any case)
// and "anonymous" are reserved. It is safe for concurrent use.
//
// Not caught: a name wholly in another script that reads like a Latin one
// ("аеі" in Cyrillic), which is a single-script name like any other.
func CheckSubject(subject string) error {
	if reason := subjectProblem(subject); reason != "" {
		return fmt.Errorf("subject %.80q %s; a subject is a name such as ana, ana.silva@example.com or ci-bot", subject, reason)
	}
	return nil
}

// subjectProblem returns the first rule of CheckSubject that subject
// breaks, or "".
func subjectProblem(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > MaxSubjectBytes:
		return fmt.Sprintf("is longer than %d bytes", MaxSubjectBytes)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.HasPrefix(strings.ToLower(s), OIDCSubjectPrefix):
		return "starts with " + OIDCSubjectPrefix + ", which is reserved for the subjects of OIDC sign-in"
	case strings.EqualFold(s, AnonymousSubject):
		return "is reserved for the caller of a server without authentication"
	}
	for _, r := range s {
		if reason := subjectRuneProblem(r); reason != "" {
			return reason
		}
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	switch {
	case !unicode.In(first, unicode.L, unicode.Nd):
		return "does not start with a letter or a digit"
	case !unicode.In(last, unicode.L, unicode.M, unicode.Nd):
		return "does not end with a letter or a digit"
	case !norm.NFKC.IsNormalString(s):
		return "is not in Unicode NFKC (a letter and its accent written apart, or a compatibility form such as a full-width letter)"
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		at = len(s)
	}
	for _, part := range []string{s[:at], s[min(at+1, len(s)):]} {
		if scripts := scriptsOf(part); !oneWriting(scripts) {
			return fmt.Sprintf("mixes the scripts %s, which makes look-alike names", strings.Join(scripts, " and "))
		}
	}
	return ""
}

// subjectRuneProblem says why r may not occur in a subject, or "".
func subjectRuneProblem(r rune) string {
	switch {
	case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(subjectPunct, r)):
		return ""
	case unicode.IsSpace(r) || unicode.Is(unicode.Zs, r):
		return fmt.Sprintf("holds a space (%U)", r)
	case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
		return fmt.Sprintf("holds the invisible character %U", r)
	case r >= utf8.RuneSelf && unicode.In(r, unicode.L, unicode.M, unicode.Nd) &&
		!unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return ""
	}
	return fmt.Sprintf("holds %q (%U); only letters, digits and %s may", r, r, strings.Join(strings.Split(subjectPunct, ""), " "))
}

// scriptsOf returns the scripts of the characters of s, sorted, those
// shared by all scripts (Common: digits, punctuation; Inherited: most
// marks) left out.
func scriptsOf(s string) []string {
	var out []string
	for _, r := range s {
		if r < utf8.RuneSelf && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			continue
		}
		name := scriptOf(r)
		if name != "" && name != "Common" && name != "Inherited" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// scriptOf returns the name of r's script ("" for none).
func scriptOf(r rune) string {
	if r < utf8.RuneSelf {
		return "Latin" // ASCII letters; the caller passes no other ASCII
	}
	for name, table := range unicode.Scripts {
		if unicode.Is(table, r) {
			return name
		}
	}
	return ""
}

// writings are the mixes of scripts one language writes with (UTS #39's
// "highly restrictive" level): a name may hold any subset of one of them.
var writings = [][]string{
	{"Han", "Hiragana", "Katakana", "Latin"},
	{"Bopomofo", "Han", "Latin"},
	{"Hangul", "Han", "Latin"},
}

// oneWriting reports whether the sorted scripts are one script, or all of
// one writing.
func oneWriting(scripts []string) bool {
	if len(scripts) <= 1 {
		return true
	}
	for _, w := range writings {
		if !slices.ContainsFunc(scripts, func(s string) bool { return !slices.Contains(w, s) }) {
			return true
		}
	}
	return false
}
