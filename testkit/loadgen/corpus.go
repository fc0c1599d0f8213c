package loadgen

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

// The search corpus: team-memory notes of realistic English mixed with
// code identifiers, paths and commands, generated deterministically from
// the repository and key (the same corpus on every run, so a loaded server
// is not loaded again). Words follow a Zipf distribution over the
// vocabulary, as in prose: a few words are in almost every note, most in
// few.
var (
	corpusCommon = strings.Fields(`the a to of and in is for on that with it this be as we are not by when
		use from or at should can if run it's before after all new only one each our will but so then`)
	corpusWords = strings.Fields(`deploy database migration server client request response timeout retry
		cache index query token secret config release build test pipeline branch merge review commit
		rollback schema table column replica primary backup restore latency throughput memory disk cpu
		queue worker job schedule cron alert metric dashboard incident outage postmortem runbook oncall
		customer tenant account billing invoice payment refund subscription plan quota limit rate
		feature flag experiment rollout canary staging production local docker kubernetes helm chart
		terraform bucket region zone network dns certificate proxy gateway load balancer health check
		probe readiness liveness log trace span sampling error warning panic crash restart upgrade
		version dependency module package vendor lint format style naming convention decision tradeoff
		because instead always never prefer avoid remember note caveat gotcha workaround bug fix
		regression flaky slow fast safe unsafe legacy deprecated owner team frontend backend mobile api
		endpoint handler middleware router session cookie login password oauth scope grant permission
		admin reader writer lock transaction isolation deadlock vacuum analyze partition shard
		consistency eventual strong idempotent ordering duplicate event stream webhook notification email`)
	corpusIdents = strings.Fields(`pool_max_conns max_idle_time statement_timeout work_mem shared_buffers
		RetryPolicy BackoffConfig newHTTPClient parseConfig applyMigrations runGroup writeQueue
		TEAMMEM_TOKEN DATABASE_URL LOG_LEVEL read_only feature_flags user_id tenant_id created_at
		maxBatch linger checkpoint_interval wal_autocheckpoint gin_pending_list_limit`)
	corpusPaths = strings.Fields(`server/postgres/write.go server/sqlite/writer.go cmd/teammem-server/main.go
		deploy/helm/values.yaml .github/workflows/ci.yml testkit/loadgen/run.go docs/operations.md
		migrations/postgres/000001_init.up.sql client/agent/sync.go Makefile`)
	corpusCommands = []string{"make release", "make test", "go test ./...", "kubectl rollout restart",
		"terraform apply", "git rebase main", "docker compose up", "psql -c 'VACUUM ANALYZE'"}
)

// CorpusNote is the note of the search corpus at key in repo, size bytes
// long (the search scenario's content; the MCP benchmarks use it too).
func CorpusNote(repo, key string, size int) string {
	h := fnv.New64a()
	h.Write([]byte(repo + "\x00" + key))
	rng := rand.New(rand.NewPCG(h.Sum64(), 23))
	vocab := len(corpusCommon) + len(corpusWords)
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(vocab-1))
	word := func() string {
		i := int(zipf.Uint64())
		if i < len(corpusCommon) {
			return corpusCommon[i]
		}
		return corpusWords[i-len(corpusCommon)]
	}
	var b strings.Builder
	b.Grow(size + 256)
	fmt.Fprintf(&b, "---\nname: %s %s\ndescription: %s %s %s %s\n---\n\n# %s %s\n\n",
		corpusWords[rng.IntN(len(corpusWords))], corpusWords[rng.IntN(len(corpusWords))],
		word(), word(), word(), word(), word(), word())
	for b.Len() < size {
		n := 8 + rng.IntN(12)
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			switch r := rng.IntN(100); {
			case r < 3:
				b.WriteString("`" + corpusIdents[rng.IntN(len(corpusIdents))] + "`")
			case r < 4:
				b.WriteString(corpusPaths[rng.IntN(len(corpusPaths))])
			case r < 5:
				b.WriteString("`" + corpusCommands[rng.IntN(len(corpusCommands))] + "`")
			default:
				b.WriteString(word())
			}
		}
		b.WriteString(".\n")
		if rng.IntN(5) == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()[:size]
}

// SearchQueries are the queries of the search scenario, used in turn: a
// common word, two and three words, an identifier, a path, a quoted
// command, a rare pair and a word found nowhere.
var SearchQueries = []string{
	"deploy", "database migration", "pool_max_conns", "server/postgres/write.go", `"make release"`,
	"timeout retry", "rollback replica deadlock", "canary webhook", "zyzzyva",
}
