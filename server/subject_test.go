package server

import (
	"strings"
	"testing"
)

// TestCheckSubjectRefuses: names that read as another's, hide what they
// are, or take a reserved name are refused, each with its reason.
func TestCheckSubjectRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ subject, reason string }{
		"empty":                       {"", "empty"},
		"too long":                    {strings.Repeat("a", MaxSubjectBytes+1), "longer than"},
		"trailing space":              {"ana ", "space (U+0020)"},
		"leading space":               {" ana", "space (U+0020)"},
		"inner space":                 {"ana silva", "space"},
		"no-break space":              {"ana\u00a0", "space (U+00A0)"},
		"ideographic space":           {"ana\u3000b", "space (U+3000)"},
		"tab":                         {"ana\tb", "space (U+0009)"},
		"newline":                     {"ana\nroot", "space"},
		"NUL":                         {"ana\x00", "U+0000"},
		"escape":                      {"ana\x1b[31m", "U+001B"},
		"DEL":                         {"ana\x7f", "U+007F"},
		"C1 control":                  {"ana\u0085x", "U+0085"},
		"zero-width space":            {"an\u200ba", "U+200B"},
		"zero-width joiner":           {"an\u200da", "U+200D"},
		"soft hyphen":                 {"an\u00ada", "U+00AD"},
		"right-to-left override":      {"ana\u202egnp", "U+202E"},
		"left-to-right isolate":       {"ana\u2066x", "U+2066"},
		"BOM":                         {"\ufeffana", "U+FEFF"},
		"Hangul filler":               {"ana\u3164", "U+3164"},
		"variation selector":          {"ana\ufe0f", "U+FE0F"},
		"Cyrillic a in Latin":         {"\u0430na", "Cyrillic and Latin"},
		"Cyrillic o in an e-mail":     {"b\u043eb@example.com", "Cyrillic and Latin"},
		"Cyrillic in the domain":      {"bob@ex\u0430mple.com", "Cyrillic and Latin"},
		"Greek omicron in Latin":      {"b\u03bfb", "Greek and Latin"},
		"Cyrillic and Greek":          {"\u0430\u03b1", "Cyrillic and Greek"},
		"Arabic-Indic digit in Latin": {"ana\u0661", "Arabic and Latin"},
		"full-width letters":          {"\uff41na", "NFKC"},
		"ligature":                    {"\ufb01le", "NFKC"},
		"decomposed accent":           {"jose\u0301", "NFKC"},
		"OIDC prefix":                 {"oidc:ana", "oidc:"},
		"OIDC prefix, upper case":     {"OIDC:ana", "oidc:"},
		"anonymous":                   {"anonymous", "reserved"},
		"Anonymous":                   {"Anonymous", "reserved"},
		"colon":                       {"ci:deploy", "':'"},
		"slash":                       {"acme/ci", "'/'"},
		"markup":                      {"<b>ana</b>", "'<'"},
		"quote":                       {"ana\"", "'\"'"},
		"at sign look-alike":          {"ana\uff20example.com", "U+FF20"},
		"dash look-alike":             {"ci\u2010bot", "U+2010"},
		"leading dash":                {"-ana", "start"},
		"leading dot":                 {".ana", "start"},
		"leading mark":                {"\u0301ana", "start"},
		"trailing dot":                {"ana.", "end"},
		"trailing at":                 {"ana@", "end"},
		"emoji":                       {"ana🚀", "U+1F680"},
		"invalid UTF-8":               {"ana\xff", "UTF-8"},
	} {
		t.Run(name, func(t *testing.T) {
			err := CheckSubject(tc.subject)
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("CheckSubject(%q) = %v; want a refusal mentioning %q", tc.subject, err, tc.reason)
			}
		})
	}
}

// TestCheckSubjectAccepts: names people and bots go by, in any one
// script or the mixes a language writes with.
func TestCheckSubjectAccepts(t *testing.T) {
	for _, s := range []string{
		"ana", "Ana", "admin", "ci", "ci-bot", "ci_bot", "deploy.bot", "renovate-2", "a",
		"ana@example.com", "ana.silva+ci@example.com", "first.last@sub.example.co.uk",
		"josé", "Zoë", "Łukasz", "müller@example.de",
		"анна", "анна@пример.рф", "анна@example.com", "Σωκράτης", "יעל", "محمد", "अनु", "สมชาย",
		"田中太郎", "たなか", "タナカ", "田中たろう", "yamada太郎", "김민준", "王小明", "ㄅㄆ王",
		"ana2026", "2ndshift", strings.Repeat("a", MaxSubjectBytes),
	} {
		if err := CheckSubject(s); err != nil {
			t.Errorf("CheckSubject(%q) = %v; want nil", s, err)
		}
	}
}
