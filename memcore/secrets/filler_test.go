package secrets

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// fillerWords mixes ordinary words with near misses of rule keywords (ask,
// task, Asia, msg.Send, hf_hub, npm_config) so the prefilter has work to do.
var fillerWords = strings.Fields(`the a we to of and in for on is was it that this with as by from at
deploy rollback service cluster ask task desk risk Asia Pacific skip data database public pull push
token secret key API rotate vault migration schema index query cache latency p99 budget alert pager
incident owner review approve merge branch release tag build runner pipeline artifact image registry
msg.Send hf_hub_download npm_config_cache sk-learn dapper doorway ghost glossary xoxo keyring`)

// fillerLines each return one random line of clean Markdown.
var fillerLines = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return sentence(r) },
	func(r *rand.Rand) string { return "- " + sentence(r) },
	func(r *rand.Rand) string { return "## " + capitalize(words(r, 3)) },
	func(*rand.Rand) string { return "" },
	func(r *rand.Rand) string {
		return fmt.Sprintf("Trace id %08x-%04x-4%03x-a%03x-%012x in the logs.", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()>>16)
	},
	func(r *rand.Rand) string { return "sha256: " + rs(r, hexLow, 64) },
	func(r *rand.Rand) string { return "Fixed in commit " + rs(r, hexLow, 40) + "." },
	func(r *rand.Rand) string { return "    checksum = \"" + rs(r, hexLow, 32) + "\"" },
	func(r *rand.Rand) string {
		raw := make([]byte, 60+r.IntN(60))
		for i := range raw {
			raw[i] = byte(r.UintN(256))
		}
		return "thumbnail: data:image/png;base64," + base64.StdEncoding.EncodeToString(raw)
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("arn:aws:iam::%012d:role/%s", r.Int64N(1e12), words(r, 1))
	},
	func(r *rand.Rand) string {
		return "export GITHUB_TOKEN=${GITHUB_TOKEN:?set it}  # never paste the value"
	},
	func(r *rand.Rand) string { return "| " + words(r, 1) + " | " + words(r, 2) + " | <your-api-key> |" },
	func(r *rand.Rand) string {
		return "See https://docs.example.com/" + words(r, 1) + "?ref=" + rs(r, alnum, 12)
	},
}

func filler(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fillerLines[r.IntN(len(fillerLines))](r)
	}
	return out
}

func sentence(r *rand.Rand) string {
	return capitalize(words(r, 6+r.IntN(12))) + "."
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func words(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fillerWords[r.IntN(len(fillerWords))]
	}
	return strings.Join(ws, " ")
}
