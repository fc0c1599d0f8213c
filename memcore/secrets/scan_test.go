package secrets

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var seedFlag = flag.Uint64("seed", 0, "seed for the random fixtures (0: from the clock)")

// newRand returns the fixtures' random source and logs its seed, so that a
// failure reproduces with -seed.
func newRand(t testing.TB) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("fixture seed %d (rerun with -seed %d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// requiredIDs are the rule ids spec/memcore.md §14 requires.
var requiredIDs = []string{
	"anthropic-api-key", "anthropic-admin-api-key", "openai-api-key", "aws-access-token", "gcp-api-key",
	"azure-ad-client-secret", "digitalocean-pat", "digitalocean-access-token", "github-pat",
	"github-fine-grained-pat", "github-app-token", "github-oauth", "github-refresh-token", "gitlab-pat",
	"gitlab-deploy-token", "slack-bot-token", "slack-user-token", "slack-app-token", "slack-webhook-url",
	"twilio-api-key", "sendgrid-api-token", "npm-access-token", "pypi-upload-token",
	"databricks-api-token", "hashicorp-tf-api-token", "pulumi-api-token", "postman-api-token",
	"grafana-api-key", "grafana-cloud-api-token", "grafana-service-account-token", "sentry-user-token",
	"sentry-org-token", "stripe-access-token", "shopify-access-token", "shopify-shared-secret",
	"huggingface-access-token", "private-key",
}

func TestRuleTable(t *testing.T) {
	r := newRand(t)
	byID := map[string]Rule{}
	for _, rule := range Rules() {
		if _, dup := byID[rule.ID]; dup {
			t.Errorf("rule %s defined twice", rule.ID)
		}
		byID[rule.ID] = rule
	}
	for _, id := range requiredIDs {
		if _, ok := byID[id]; !ok {
			t.Errorf("required rule %s is missing", id)
		}
	}
	for id, rule := range byID {
		t.Run(id, func(t *testing.T) {
			gen, ok := generators[id]
			if !ok {
				t.Fatalf("rule %s has no token generator", id)
			}
			if rule.Label == "" || len(rule.Keywords) == 0 {
				t.Errorf("rule %s needs a Label and Keywords: %+v", id, rule)
			}
			tok := strings.ToLower(gen(r))
			if !slices.ContainsFunc(rule.Keywords, func(kw string) bool { return strings.Contains(tok, kw) }) {
				t.Errorf("no keyword of %q occurs in a generated token; the prefilter would skip it", rule.Keywords)
			}
		})
	}
	for id := range generators {
		if _, ok := byID[id]; !ok {
			t.Errorf("generator for unknown rule %s", id)
		}
	}
}

func TestRulesReturnsACopy(t *testing.T) {
	a := Rules()
	a[0].ID, a[0].Keywords[0] = "changed", "changed"
	b := Rules()
	if b[0].ID == "changed" || b[0].Keywords[0] == "changed" {
		t.Fatalf("Rules() exposes the table: %+v", b[0])
	}
}

// context embeds a token in realistic Markdown; it returns the lines and the
// index of the line on which the token starts.
type context func(tok string) ([]string, int)

var contexts = map[string]context{
	"prose": func(tok string) ([]string, int) {
		return lines("We rotated "+tok+" after the incident, see the postmortem.", "The new one lives in the vault."), 0
	},
	"code-fence": func(tok string) ([]string, int) {
		return lines("```bash", "export API_TOKEN="+tok,
			`curl -sS -H "Authorization: Bearer $API_TOKEN" https://api.example.com/v1/health`, "```"), 1
	},
	"yaml-quoted": func(tok string) ([]string, int) {
		return lines("```yaml", "billing:", "  endpoint: https://billing.internal:8443", `  token: "`+tok+`"`, "```"), 3
	},
	"yaml-block": func(tok string) ([]string, int) {
		return lines("```yaml", "credentials:", "  primary: |", "    "+strings.ReplaceAll(tok, "\n", "\n    "), "```"), 3
	},
	"line-start": func(tok string) ([]string, int) { return lines(tok + " is what the CI runner uses."), 0 },
	"line-end":   func(tok string) ([]string, int) { return lines("Runner credential: " + tok), 0 },
	"alone":      func(tok string) ([]string, int) { return lines("", tok, ""), 1 },
	"table": func(tok string) ([]string, int) {
		return lines("| env | key |", "|-----|-----|", "| prod | "+tok+" |"), 2
	},
	"inline-code": func(tok string) ([]string, int) { return lines("- Set `" + tok + "` in `settings.local.json`."), 0 },
	"json": func(tok string) ([]string, int) {
		return lines("```json", `{"service": "ingest", "apiKey": "`+tok+`", "retries": 3}`, "```"), 1
	},
}

func lines(ls ...string) []string { return ls }

// TestScanFindsEachRule embeds a fresh random token of every rule in every
// context, between random clean filler, and wants exactly that rule on
// exactly that line.
func TestScanFindsEachRule(t *testing.T) {
	eachRuleInEachContext(t, func(t *testing.T, rule Rule, tok, doc string, line int) {
		got := Scan(doc)
		want := []Match{{RuleID: rule.ID, Label: rule.Label, Line: line}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Scan mismatch (-want +got):\n%s\ntoken: %s\ndocument:\n%s", diff, tok, doc)
		}
		assertNoLeak(t, got, tok)
	})
}

// eachRuleInEachContext runs check, as a subtest, on a fresh random token
// of every rule embedded in every context between random clean filler,
// with the 1-based line on which the token starts.
func eachRuleInEachContext(t *testing.T, check func(t *testing.T, rule Rule, tok, doc string, line int)) {
	r := newRand(t)
	for _, rule := range Rules() {
		for name, ctx := range contexts {
			t.Run(rule.ID+"/"+name, func(t *testing.T) {
				tok := generators[rule.ID](r)
				doc, line := embed(r, ctx, tok)
				check(t, rule, tok, doc, line)
			})
		}
	}
}

// embed builds filler, the context around tok, and more filler; it returns
// the document and the 1-based line on which tok starts.
func embed(r *rand.Rand, ctx context, tok string) (string, int) {
	before := filler(r, r.IntN(40))
	mid, at := ctx(tok)
	after := filler(r, r.IntN(40))
	doc := strings.Join(slices.Concat(before, mid, after), "\n")
	return doc, len(before) + at + 1
}

// assertNoLeak fails when any field of any match holds 8 or more consecutive
// bytes of the token.
func assertNoLeak(t *testing.T, ms []Match, tok string) {
	t.Helper()
	for _, m := range ms {
		fields := fmt.Sprintf("%s\x00%s\x00%d", m.RuleID, m.Label, m.Line)
		for i := 0; i+8 <= len(tok); i++ {
			if strings.Contains(fields, tok[i:i+8]) {
				t.Fatalf("match %+v carries token text %q", m, tok[i:i+8])
			}
		}
	}
}

func TestScanReportsEveryRuleOnceInOrder(t *testing.T) {
	r := newRand(t)
	var doc []string
	var want []Match
	for _, rule := range slices.Backward(Rules()) {
		doc = append(doc, "Leaked in this note:")
		want = append(want, Match{RuleID: rule.ID, Label: rule.Label, Line: len(doc) + 1})
		for range 2 {
			doc = append(doc, strings.Split(generators[rule.ID](r), "\n")...)
		}
		doc = append(doc, "")
	}
	slices.SortFunc(want, compareMatches)
	if diff := cmp.Diff(want, Scan(strings.Join(doc, "\n"))); diff != "" {
		t.Errorf("Scan mismatch (-want +got):\n%s", diff)
	}
}

func TestScanEmptyIsNil(t *testing.T) {
	for _, s := range []string{"", "\n", "plain prose only"} {
		if got := Scan(s); got != nil {
			t.Errorf("Scan(%q) = %#v, want nil", s, got)
		}
	}
}
