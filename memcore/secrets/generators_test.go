package secrets

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Character sets for random tokens.
const (
	digits  = "0123456789"
	lowers  = "abcdefghijklmnopqrstuvwxyz"
	uppers  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	letters = lowers + uppers
	alnum   = digits + letters
	wordCs  = alnum + "_-"
	hexLow  = "0123456789abcdef"
	hexMix  = hexLow + "ABCDEF"
	base32  = uppers + "234567"
	azureCs = alnum + "_~."
)

// generator makes one random, valid-looking token of its rule's format.
type generator func(r *rand.Rand) string

// generators holds one token generator per rule id. TestRuleTable fails when
// a rule has none, so a new rule cannot land untested.
var generators = map[string]generator{
	"anthropic-api-key":       func(r *rand.Rand) string { return "sk-ant-api03-" + rs(r, wordCs, 93) + "AA" },
	"anthropic-admin-api-key": func(r *rand.Rand) string { return "sk-ant-admin01-" + rs(r, wordCs, 93) + "AA" },
	"openai-api-key":          genOpenAI,
	"aws-access-token":        genAWS,
	"gcp-api-key":             func(r *rand.Rand) string { return "AIza" + rs(r, wordCs, 35) },
	"azure-ad-client-secret": func(r *rand.Rand) string {
		return rs(r, azureCs, 3) + rs(r, digits, 1) + "Q~" + rs(r, azureCs+"-", between(r, 31, 34))
	},
	"digitalocean-pat":          func(r *rand.Rand) string { return "dop_v1_" + rs(r, hexLow, 64) },
	"digitalocean-access-token": func(r *rand.Rand) string { return "doo_v1_" + rs(r, hexLow, 64) },
	"github-pat":                func(r *rand.Rand) string { return "ghp_" + rs(r, alnum, 36) },
	"github-fine-grained-pat": func(r *rand.Rand) string {
		return "github_pat_" + rs(r, alnum, 22) + "_" + rs(r, alnum, 59)
	},
	"github-app-token":     func(r *rand.Rand) string { return pick(r, "ghu_", "ghs_") + rs(r, alnum, 36) },
	"github-oauth":         func(r *rand.Rand) string { return "gho_" + rs(r, alnum, 36) },
	"github-refresh-token": func(r *rand.Rand) string { return "ghr_" + rs(r, alnum, 36) },
	"gitlab-pat":           func(r *rand.Rand) string { return "glpat-" + rs(r, wordCs, 20) },
	"gitlab-deploy-token":  func(r *rand.Rand) string { return "gldt-" + rs(r, wordCs, 20) },
	"slack-bot-token": func(r *rand.Rand) string {
		return "xoxb-" + slackID(r) + "-" + slackID(r) + "-" + rs(r, alnum, 24)
	},
	"slack-user-token": func(r *rand.Rand) string {
		return pick(r, "xoxp-", "xoxe-") + slackID(r) + "-" + slackID(r) + "-" + slackID(r) + "-" + rs(r, hexLow, 32)
	},
	"slack-app-token": func(r *rand.Rand) string {
		return "xapp-1-A" + rs(r, uppers+digits, 10) + "-" + rs(r, digits, 13) + "-" + rs(r, hexLow, 64)
	},
	"slack-webhook-url": func(r *rand.Rand) string {
		return "https://hooks.slack.com/services/T" + rs(r, uppers+digits, between(r, 8, 10)) +
			"/B" + rs(r, uppers+digits, between(r, 8, 10)) + "/" + rs(r, alnum, 24)
	},
	"twilio-api-key":     func(r *rand.Rand) string { return "SK" + rs(r, hexLow, 32) },
	"sendgrid-api-token": func(r *rand.Rand) string { return "SG." + rs(r, wordCs, 22) + "." + rs(r, wordCs, 43) },
	"npm-access-token":   func(r *rand.Rand) string { return "npm_" + rs(r, alnum, 36) },
	"pypi-upload-token": func(r *rand.Rand) string {
		return "pypi-AgEIcHlwaS5vcmc" + rs(r, wordCs, between(r, 60, 200))
	},
	"databricks-api-token": func(r *rand.Rand) string {
		return "dapi" + rs(r, hexLow, 32) + pick(r, "", "-"+rs(r, digits, 1))
	},
	"hashicorp-tf-api-token": func(r *rand.Rand) string {
		return rs(r, alnum, 14) + ".atlasv1." + rs(r, wordCs, between(r, 60, 70))
	},
	"pulumi-api-token":  func(r *rand.Rand) string { return "pul-" + rs(r, hexLow, 40) },
	"postman-api-token": func(r *rand.Rand) string { return "PMAK-" + rs(r, hexLow, 24) + "-" + rs(r, hexLow, 34) },
	"grafana-api-key": func(r *rand.Rand) string {
		return b64json(r, `{"k":"%s","n":"%s","id":%d}`, rs(r, alnum, 32), rs(r, lowers, between(r, 6, 12)), r.IntN(999)+1)
	},
	"grafana-cloud-api-token": func(r *rand.Rand) string {
		return "glc_" + b64json(r, `{"o":"%d","n":"%s","k":"%s","m":{"r":"prod-us-east-0"}}`,
			r.IntN(9e6)+1e6, rs(r, lowers, between(r, 6, 12)), rs(r, alnum, 24))
	},
	"grafana-service-account-token": func(r *rand.Rand) string {
		return "glsa_" + rs(r, alnum, 32) + "_" + rs(r, hexLow, 8)
	},
	"sentry-user-token":        func(r *rand.Rand) string { return "sntryu_" + rs(r, hexLow, 64) },
	"sentry-org-token":         genSentryOrg,
	"stripe-access-token":      genStripe,
	"shopify-access-token":     func(r *rand.Rand) string { return "shpat_" + rs(r, hexLow, 32) },
	"shopify-shared-secret":    func(r *rand.Rand) string { return "shpss_" + rs(r, hexLow, 32) },
	"huggingface-access-token": func(r *rand.Rand) string { return "hf_" + rs(r, letters, 34) },
	"private-key":              genPrivateKey,
}

func genOpenAI(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return "sk-" + rs(r, alnum, 20) + "T3BlbkFJ" + rs(r, alnum, 20)
	}
	side := func() string { return rs(r, wordCs, []int{58, 74}[r.IntN(2)]) }
	return "sk-" + pick(r, "proj", "svcacct", "admin") + "-" + side() + "T3BlbkFJ" + side()
}

func genAWS(r *rand.Rand) string {
	for {
		prefix := pick(r, "AKIA", "ASIA", "ABIA", "ACCA", "A3T"+rs(r, uppers+digits, 1))
		// The rule's allowlist: documentation ids and ids that read as words.
		if tok := prefix + rs(r, base32, 16); !strings.HasSuffix(tok, "EXAMPLE") && !wordLike(tok[4:]) {
			return tok
		}
	}
}

func genStripe(r *rand.Rand) string {
	for {
		body := rs(r, alnum, between(r, 24, 99))
		if !wordLike(body) { // the rule's allowlist: bodies that read as words
			return pick(r, "sk", "rk") + "_" + pick(r, "test", "live", "prod") + "_" + body
		}
	}
}

func genSentryOrg(r *rand.Rand) string {
	payload := b64json(r, `{"iat":%d.%06d,"url":"https://sentry.io","region_url":"https://%s.sentry.io","org":"%s"}`,
		1_600_000_000+r.IntN(2e8), r.IntN(1e6), pick(r, "us", "de"), rs(r, lowers, between(r, 4, 12)))
	return "sntrys_" + payload + "_" + rs(r, alnum+"+/", 43)
}

func genPrivateKey(r *rand.Rand) string {
	kind := pick(r, "", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED ")
	raw := make([]byte, between(r, 120, 1200))
	for i := range raw {
		raw[i] = byte(r.UintN(256))
	}
	body := base64.StdEncoding.EncodeToString(raw)
	if kind == "OPENSSH " {
		// Real OpenSSH keys start with runs of A (zero length fields).
		body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + body
	}
	var b strings.Builder
	b.WriteString("-----BEGIN " + kind + "PRIVATE KEY-----\n")
	for len(body) > 64 {
		b.WriteString(body[:64] + "\n")
		body = body[64:]
	}
	b.WriteString(body + "\n-----END " + kind + "PRIVATE KEY-----")
	return b.String()
}

func b64json(r *rand.Rand, format string, args ...any) string {
	enc := base64.StdEncoding
	if r.IntN(2) == 0 {
		enc = base64.RawStdEncoding
	}
	return enc.EncodeToString(fmt.Appendf(nil, format, args...))
}

func slackID(r *rand.Rand) string { return rs(r, "123456789", 1) + rs(r, digits, between(r, 9, 12)) }

func pick(r *rand.Rand, options ...string) string { return options[r.IntN(len(options))] }

func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// rs returns n random bytes from charset. Like a real token it holds no run
// of six identical or six ascending characters (a real token does with
// probability ~1e-7; those are what the placeholder filter drops).
func rs(r *rand.Rand, charset string, n int) string {
	b := make([]byte, n)
	for {
		for i := range b {
			b[i] = charset[r.IntN(len(charset))]
		}
		if !hasRun(string(b), 6) {
			return string(b)
		}
	}
}
