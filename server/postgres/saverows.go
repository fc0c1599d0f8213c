package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// The statements that store a group's writes, each once per group
// whatever its size: every argument after the repository is an array with
// one element per row.
const (
	saveVersions = `INSERT INTO versions (repo, version, checksum, ` + writeplan.VersionProvenance + `)
		SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::text[], $11::bigint[])`
	saveRevisions = `INSERT INTO revisions (repo, key, version, op, checksum, size, author, at, content)
		SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::text[],
			$8::timestamptz[], $9::text[])`
	// A put makes the key's row live with its content; a delete keeps the
	// checksum and size of the content it removed and empties the content.
	// The search vectors are left as they are: the key is marked in
	// search_pending (markPending), and they are set from the marks before
	// a search reads them (see search_pending.go).
	saveEntries = `INSERT INTO entries (repo, key, folded_key, checksum, size, content, version, updated_at, deleted, deleted_at)
		SELECT $1, k, f, c, s, t, v, u, d, CASE WHEN d THEN u END
		FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::bigint[], $8::timestamptz[],
			$9::bool[]) AS x(k, f, c, s, t, v, u, d)
		ON CONFLICT (repo, key) DO UPDATE SET folded_key = excluded.folded_key, checksum = excluded.checksum,
			size = excluded.size, content = excluded.content, version = excluded.version,
			updated_at = excluded.updated_at, deleted = excluded.deleted, deleted_at = excluded.deleted_at`
)

// saveRows are the rows a group's plans store: one version row per plan,
// one revision per change, and each changed key's entry as its last
// change in the group leaves it.
type saveRows struct {
	verVersion []int64
	verSum     []string
	verProv    [7][]string // each text column of writeplan.VersionProvenance
	verProp    []int64     // its proposal column

	revKey     []string
	revVersion []int64
	revOp      []string
	revSum     []string
	revSize    []int64
	revAuthor  []string
	revAt      []time.Time
	revContent []string

	entIndex   map[string]int // key → its element in the ent arrays
	entKey     []string
	entFolded  []string
	entSum     []string
	entSize    []int64
	entContent []string
	entVersion []int64
	entAt      []time.Time
	entDeleted []bool
}

// newSaveRows is the rows of plans, every array made its final size
// at once (a group's write is CPU-bound: no array regrows).
func newSaveRows(plans []*writeplan.Plan) *saveRows {
	changes := 0
	for _, p := range plans {
		changes += len(p.Changes)
	}
	n := len(plans)
	r := &saveRows{verVersion: make([]int64, 0, n), verSum: make([]string, 0, n), verProp: make([]int64, 0, n),
		revKey: make([]string, 0, changes), revVersion: make([]int64, 0, changes), revOp: make([]string, 0, changes),
		revSum: make([]string, 0, changes), revSize: make([]int64, 0, changes), revAuthor: make([]string, 0, changes),
		revAt: make([]time.Time, 0, changes), revContent: make([]string, 0, changes),
		entIndex: make(map[string]int, changes), entKey: make([]string, 0, changes), entFolded: make([]string, 0, changes),
		entSum: make([]string, 0, changes), entSize: make([]int64, 0, changes), entContent: make([]string, 0, changes),
		entVersion: make([]int64, 0, changes), entAt: make([]time.Time, 0, changes), entDeleted: make([]bool, 0, changes)}
	for i := range r.verProv {
		r.verProv[i] = make([]string, 0, n)
	}
	for _, p := range plans {
		r.add(p)
	}
	return r
}

// add adds the rows of one plan.
func (r *saveRows) add(p *writeplan.Plan) {
	r.verVersion, r.verSum = append(r.verVersion, p.Version), append(r.verSum, p.Checksum)
	for i, v := range writeplan.ProvenanceValues(p.Provenance) {
		if s, ok := v.(string); ok {
			r.verProv[i] = append(r.verProv[i], s)
		}
	}
	r.verProp = append(r.verProp, p.Provenance.Proposal)
	for _, ch := range p.Changes {
		r.revKey = append(r.revKey, ch.Key)
		r.revVersion = append(r.revVersion, p.Version)
		r.revOp = append(r.revOp, string(ch.Op))
		r.revSum = append(r.revSum, ch.Checksum)
		r.revSize = append(r.revSize, ch.Size)
		r.revAuthor = append(r.revAuthor, p.Author)
		r.revAt = append(r.revAt, p.At)
		r.revContent = append(r.revContent, ch.Content)
		r.entry(ch, p)
	}
}

// entry sets the entry row of ch's key, replacing the one an earlier plan
// of the group left.
func (r *saveRows) entry(ch writeplan.Change, p *writeplan.Plan) {
	if r.entIndex == nil {
		r.entIndex = map[string]int{}
	}
	i, seen := r.entIndex[ch.Key]
	if !seen {
		i = len(r.entKey)
		r.entIndex[ch.Key] = i
		r.entKey = append(r.entKey, ch.Key)
		r.entFolded = append(r.entFolded, protocol.FoldKey(ch.Key))
		r.entSum, r.entSize, r.entContent = append(r.entSum, ""), append(r.entSize, 0), append(r.entContent, "")
		r.entVersion, r.entAt, r.entDeleted = append(r.entVersion, 0), append(r.entAt, time.Time{}), append(r.entDeleted, false)
	}
	r.entSum[i], r.entSize[i], r.entContent[i] = ch.Checksum, ch.Size, ch.Content
	r.entVersion[i], r.entAt[i], r.entDeleted[i] = p.Version, p.At, ch.Op == server.OpDelete
}

// queue queues the statements storing the rows and marking their keys for
// search; marked receives how many keys were not marked yet.
func (r *saveRows) queue(b *pgx.Batch, repo string, marked *int64) {
	b.Queue(saveVersions, repo, r.verVersion, r.verSum, r.verProv[0], r.verProv[1], r.verProv[2], r.verProv[3],
		r.verProv[4], r.verProv[5], r.verProv[6], r.verProp)
	if len(r.revKey) == 0 {
		return
	}
	b.Queue(saveRevisions, repo, r.revKey, r.revVersion, r.revOp, r.revSum, r.revSize, r.revAuthor, r.revAt, r.revContent)
	b.Queue(saveEntries, repo, r.entKey, r.entFolded, r.entSum, r.entSize, r.entContent, r.entVersion, r.entAt, r.entDeleted)
	queueMarks(b, repo, r.entKey, marked)
}
