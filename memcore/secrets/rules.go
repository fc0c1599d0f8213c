package secrets

import (
	"regexp"
	"strings"
	"sync"
)

// The token formats below follow the public gitleaks rule set
// (github.com/gitleaks/gitleaks, config/gitleaks.toml, MIT licensed): the
// rule ids, keywords and entropy floors are gitleaks', the patterns are
// re-expressed here for Go's RE2 and for Markdown. Differences, each toward
// fewer false positives on prose or toward tokens gitleaks misses:
//
//   - Leading \b guards are checked in code (Rule.wordStart), not in the
//     pattern, so RE2 can jump to the literal prefix.
//   - A pattern runs one line at a time, so ^ and $ are the line's ends.
//   - Trailing guards say "not followed by another token character"
//     (tail below) instead of gitleaks' list of allowed followers, so a token
//     ending a sentence, a table cell or a link still matches.
//   - twilio-api-key is word-bounded; gitleaks' SK[0-9a-fA-F]{32} is not.
//   - sendgrid-api-token spells out the SG.<22>.<43> structure.
//   - slack-app-token requires real-length parts; slack-bot-token also takes
//     gitleaks' separate legacy bot format.
//   - grafana-api-key and grafana-cloud-api-token accept + and / (they are
//     base64); stripe-access-token accepts bodies up to 247 characters.
//   - aws-access-token's entropy floor is 2.5, not 3: one random key id in
//     ~4000 falls under 3 bits, one in ~10^6 under 2.5.
//   - aws-access-token and stripe-access-token drop bodies that read as
//     words (see wordLike): ASIAPACIFICSOUTHEAST is a region list, not a
//     key. The cost: about 1 random AWS key id in 150 and 1 random 24-character
//     Stripe key in 900 read as words and are missed (requiring a digit
//     instead would miss 1 AWS key id in 28).
//   - stripe-access-token wants a body of at least 20 characters (real keys
//     have 24 or 99), so sk_test_MyStripeKey, a name, does not match.
//   - private-key requires the -----END ... PRIVATE KEY----- line, and its
//     body cannot hold "--", so a marker quoted in prose does not pair with
//     the END of a later block.
//   - npm-access-token and huggingface-access-token must mix character
//     classes (a snake_case identifier is not a token).
//   - Every rule but private-key drops candidates holding a placeholder run
//     (see placeholder), as gitleaks' stopwords do.
//
// Allowlist, as gitleaks: aws-access-token ignores ids ending in EXAMPLE
// (AWS documentation's AKIAIOSFODNN7EXAMPLE and friends).

// Character classes and guards shared by the patterns.
const (
	word  = `0-9A-Za-z_\-`                                  // [\w-]: most token bodies
	b64   = `0-9A-Za-z+/`                                   // standard base64 alphabet
	tail  = `(?:[^` + word + `]|$)`                         // not followed by [\w-]
	tailB = `(?:[^` + word + `+/=]|$)`                      // ... nor by base64 or =
	hex32 = `[0-9a-fA-F]{32}`                               // Twilio, Shopify
	azure = `0-9A-Za-z_~.`                                  // Azure secret characters
	pem   = `[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----` // after BEGIN/END
)

var table = []Rule{
	{ID: "anthropic-api-key", Label: "Anthropic API key", Keywords: []string{"sk-ant-api03"},
		wordStart: true, re: re(`(sk-ant-api03-[` + word + `]{93}AA)` + tail)},
	{ID: "anthropic-admin-api-key", Label: "Anthropic Admin API key", Keywords: []string{"sk-ant-admin01"},
		wordStart: true, re: re(`(sk-ant-admin01-[` + word + `]{93}AA)` + tail)},
	{ID: "openai-api-key", Label: "OpenAI API key", Keywords: []string{"t3blbkfj"}, minEntropy: 3,
		wordStart: true, re: re(`(sk-(?:proj|svcacct|admin)-(?:[` + word + `]{74}|[` + word + `]{58})T3BlbkFJ(?:[` + word + `]{74}|[` + word + `]{58})` +
			`|sk-[0-9A-Za-z]{20}T3BlbkFJ[0-9A-Za-z]{20})` + tail)},
	{ID: "aws-access-token", Label: "AWS access key ID", Keywords: []string{"a3t", "akia", "asia", "abia", "acca"}, minEntropy: 2.5,
		wordStart: true, re: re(`((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`),
		reject: func(s string) bool { return strings.HasSuffix(s, "EXAMPLE") || wordLike(s[4:]) }},
	{ID: "gcp-api-key", Label: "Google Cloud API key", Keywords: []string{"aiza"}, minEntropy: 4,
		wordStart: true, re: re(`(AIza[` + word + `]{35})` + tail)},
	{ID: "azure-ad-client-secret", Label: "Azure AD client secret", Keywords: []string{"q~"}, minEntropy: 3,
		re: re(`(?:^|[^` + azure + `-])([` + azure + `]{3}[0-9]Q~[` + azure + `-]{31,34})\.?(?:[^` + azure + `-]|$)`)},
	{ID: "digitalocean-pat", Label: "DigitalOcean personal access token", Keywords: []string{"dop_v1_"}, minEntropy: 3,
		wordStart: true, re: re(`(dop_v1_[a-f0-9]{64})` + tail)},
	{ID: "digitalocean-access-token", Label: "DigitalOcean OAuth access token", Keywords: []string{"doo_v1_"}, minEntropy: 3,
		wordStart: true, re: re(`(doo_v1_[a-f0-9]{64})` + tail)},
	{ID: "github-pat", Label: "GitHub personal access token", Keywords: []string{"ghp_"}, minEntropy: 3,
		re: re(`(ghp_[0-9A-Za-z]{36})`)},
	{ID: "github-fine-grained-pat", Label: "GitHub fine-grained personal access token", Keywords: []string{"github_pat_"}, minEntropy: 3,
		re: re(`(github_pat_[0-9A-Za-z_]{82})`)},
	{ID: "github-app-token", Label: "GitHub App token", Keywords: []string{"ghu_", "ghs_"}, minEntropy: 3,
		re: re(`((?:ghu|ghs)_[0-9A-Za-z]{36})`)},
	{ID: "github-oauth", Label: "GitHub OAuth access token", Keywords: []string{"gho_"}, minEntropy: 3,
		re: re(`(gho_[0-9A-Za-z]{36})`)},
	{ID: "github-refresh-token", Label: "GitHub refresh token", Keywords: []string{"ghr_"}, minEntropy: 3,
		re: re(`(ghr_[0-9A-Za-z]{36})`)},
	{ID: "gitlab-pat", Label: "GitLab personal access token", Keywords: []string{"glpat-"}, minEntropy: 3,
		re: re(`(glpat-[` + word + `]{20})`)},
	{ID: "gitlab-deploy-token", Label: "GitLab deploy token", Keywords: []string{"gldt-"}, minEntropy: 3,
		re: re(`(gldt-[` + word + `]{20})`)},
	{ID: "slack-bot-token", Label: "Slack bot token", Keywords: []string{"xoxb"}, minEntropy: 3,
		re: re(`(xoxb-[0-9]{10,13}-[0-9]{10,13}[0-9A-Za-z-]*|xoxb-[0-9]{8,14}-[0-9A-Za-z]{18,26})`)},
	{ID: "slack-user-token", Label: "Slack user token", Keywords: []string{"xoxp-", "xoxe-"}, minEntropy: 2,
		re: re(`(xox[pe](?:-[0-9]{10,13}){3}-[0-9A-Za-z-]{28,34})`)},
	{ID: "slack-app-token", Label: "Slack app-level token", Keywords: []string{"xapp"}, minEntropy: 2,
		re: re(`(xapp-[0-9]-[A-Z0-9]{9,}-[0-9]{9,}-[0-9A-Za-z]{24,})`)},
	{ID: "slack-webhook-url", Label: "Slack incoming webhook URL", Keywords: []string{"hooks.slack.com"}, minEntropy: 3, entropyGroup: 2,
		re: re(`((?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/([` + b64 + `]{43,56}))`)},
	{ID: "twilio-api-key", Label: "Twilio API key", Keywords: []string{"sk"}, minEntropy: 3,
		wordStart: true, re: re(`(SK` + hex32 + `)\b`)},
	{ID: "sendgrid-api-token", Label: "SendGrid API key", Keywords: []string{"sg."}, minEntropy: 2,
		wordStart: true, re: re(`(SG\.[` + word + `]{22}\.[` + word + `]{43})` + tail)},
	{ID: "npm-access-token", Label: "npm access token", Keywords: []string{"npm_"}, minEntropy: 2,
		wordStart: true, re: re(`(npm_[0-9A-Za-z]{36})` + tail), reject: notMixed(4)},
	{ID: "pypi-upload-token", Label: "PyPI upload token", Keywords: []string{"pypi-ageichlwas5vcmc"}, minEntropy: 3,
		re: re(`(pypi-AgEIcHlwaS5vcmc[` + word + `]{50,1000})`)},
	{ID: "databricks-api-token", Label: "Databricks API token", Keywords: []string{"dapi"}, minEntropy: 3,
		wordStart: true, re: re(`(dapi[a-f0-9]{32}(?:-[0-9])?)` + tail)},
	{ID: "hashicorp-tf-api-token", Label: "HashiCorp Terraform API token", Keywords: []string{".atlasv1."}, minEntropy: 3.5,
		wordStart: true, re: re(`([0-9A-Za-z]{14}\.atlasv1\.[` + word + `=]{60,70})(?:[^` + word + `=]|$)`)},
	{ID: "pulumi-api-token", Label: "Pulumi access token", Keywords: []string{"pul-"}, minEntropy: 2,
		wordStart: true, re: re(`(pul-[a-f0-9]{40})` + tail)},
	{ID: "postman-api-token", Label: "Postman API key", Keywords: []string{"pmak-"}, minEntropy: 3,
		wordStart: true, re: re(`(PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34})` + tail)},
	{ID: "grafana-api-key", Label: "Grafana API key", Keywords: []string{"eyjrijoi"}, minEntropy: 3,
		wordStart: true, re: re(`(eyJrIjoi[` + b64 + `]{70,400}={0,3})` + tailB)},
	{ID: "grafana-cloud-api-token", Label: "Grafana Cloud API token", Keywords: []string{"glc_"}, minEntropy: 3,
		wordStart: true, re: re(`(glc_[` + b64 + `]{32,400}={0,3})` + tailB)},
	{ID: "grafana-service-account-token", Label: "Grafana service account token", Keywords: []string{"glsa_"}, minEntropy: 3,
		wordStart: true, re: re(`(glsa_[0-9A-Za-z]{32}_[0-9A-Fa-f]{8})` + tail)},
	{ID: "sentry-user-token", Label: "Sentry user auth token", Keywords: []string{"sntryu_"}, minEntropy: 3.5,
		wordStart: true, re: re(`(sntryu_[a-f0-9]{64})` + tail)},
	{ID: "sentry-org-token", Label: "Sentry organization auth token", Keywords: []string{"sntrys_eyjpyxqio"}, minEntropy: 4.5,
		wordStart: true, re: re(`(sntrys_eyJpYXQiO[` + b64 + `]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[` + b64 + `]{10,200}={0,2}_[` + b64 + `]{43})(?:[^` + b64 + `]|$)`)},
	{ID: "stripe-access-token", Label: "Stripe secret key", Keywords: []string{"sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod"}, minEntropy: 2,
		wordStart: true, re: re(`((?:sk|rk)_(?:test|live|prod)_[0-9A-Za-z]{20,247})` + tail),
		reject: func(s string) bool { return wordLike(s[len("sk_test_"):]) }},
	{ID: "shopify-access-token", Label: "Shopify access token", Keywords: []string{"shpat_"}, minEntropy: 2,
		re: re(`(shpat_` + hex32 + `)`)},
	{ID: "shopify-shared-secret", Label: "Shopify shared secret", Keywords: []string{"shpss_"}, minEntropy: 2,
		re: re(`(shpss_` + hex32 + `)`)},
	{ID: "huggingface-access-token", Label: "Hugging Face access token", Keywords: []string{"hf_"}, minEntropy: 2,
		wordStart: true, re: re(`(hf_[A-Za-z]{34})` + tail), reject: notMixed(3)},
	{ID: "private-key", Label: "Private key", Keywords: []string{"-----begin"}, minEntropy: 3, entropyGroup: 2, multiline: true, keepRuns: true,
		re: re(`(-----BEGIN` + pem + `((?:[^-]|-[^-])*?)-----END` + pem + `)`), minLen: 64},
}

// keywords indexes every rule's keywords; built once, read-only afterwards.
var keywords = newKeywordIndex(table)

// re returns pattern compiled on first use: compiling every rule at start
// took 20–40 ms of every process's start-up (most of it, and a window in
// which the agent cannot yet catch SIGTERM), and most scans never run most
// rules.
func re(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// wordLike reports whether a token body reads as words rather than random
// characters: it holds no digit and at least 30% of its letters are vowels
// (a random base32 or alphanumeric body has about 19%; English has ~40%).
func wordLike(body string) bool {
	letters, vowels := 0, 0
	for _, c := range []byte(body) {
		switch {
		case '0' <= c && c <= '9':
			return false
		case strings.IndexByte("aeiouAEIOU", c) >= 0:
			letters, vowels = letters+1, vowels+1
		case 'a' <= lower[c] && lower[c] <= 'z':
			letters++
		}
	}
	return letters > 0 && vowels*10 >= letters*3
}

// notMixed returns a reject filter for a token whose body, after the first
// prefixLen bytes, uses a single character class (all lower case, all upper
// case or all digits), which is how identifiers look and random tokens don't.
func notMixed(prefixLen int) func(string) bool {
	return func(s string) bool {
		var lowerSeen, upperSeen, digitSeen bool
		for _, c := range []byte(s[prefixLen:]) {
			switch {
			case 'a' <= c && c <= 'z':
				lowerSeen = true
			case 'A' <= c && c <= 'Z':
				upperSeen = true
			case '0' <= c && c <= '9':
				digitSeen = true
			}
		}
		n := 0
		for _, seen := range []bool{lowerSeen, upperSeen, digitSeen} {
			if seen {
				n++
			}
		}
		return n < 2
	}
}
