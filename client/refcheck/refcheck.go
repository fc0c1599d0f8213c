// Package refcheck checks the code references of memory topic files (as
// memcore/refs finds them) against a checkout's HEAD commit, read with
// go-git: a path that is not in HEAD's tree, a line range past the end of
// the file, a symbol that the file does not hold (a word-boundary search
// of the blob, not a parse of the language). The working tree is never
// read, so untracked and uncommitted files count as missing. For a
// missing path it walks a bounded stretch of first-parent history to name
// the commit that removed it and, when git's rename detection pairs it,
// the path it moved to.
//
// A Checker remembers its results by (HEAD, topic content): checking the
// same topics at the same HEAD again reads no object. A Checker is safe
// for concurrent use.
package refcheck

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/teammem/teammem/memcore/refs"
)

// Reasons a reference is stale.
const (
	// ReasonMissing: the path is not in HEAD's tree.
	ReasonMissing = "missing"
	// ReasonPastEnd: the line range ends after the file's last line.
	ReasonPastEnd = "past-end"
	// ReasonNoSymbol: the file does not hold the symbol as a word.
	ReasonNoSymbol = "no-symbol"
	// ReasonNotFile: a line range or symbol names a folder, or a folder
	// reference names a file.
	ReasonNotFile = "not-file"
)

// Topic is one topic file to check.
type Topic struct {
	// Key is the topic's path in its memory folder.
	Key string
	// Content is the file's content, when Read is nil.
	Content string
	// Version, when set, identifies the content (its checksum): a topic
	// whose Version and HEAD are those of the previous Check is not read
	// nor checked again. "" means the SHA-256 of Content.
	Version string
	// Read, when set, returns the content; it is called only when the
	// topic must be checked (a new Version or HEAD). An error leaves the
	// topic out of the report.
	Read func() (string, error)
	// MemoryFile, when set, reports whether a link destination names a
	// file of the memory folder (a link between topics, not to the code).
	MemoryFile func(dest string) bool
}

// Finding is one stale reference.
type Finding struct {
	// Key is the topic that holds the reference.
	Key string `json:"key"`
	// Ref is the reference.
	Ref refs.Ref `json:"ref"`
	// Reason is one of the Reason constants.
	Reason string `json:"reason"`
	// Message says what is wrong, for a person.
	Message string `json:"message"`
	// Since is the commit that removed a missing path, "" when not found
	// within the history walked.
	Since string `json:"since,omitempty"`
	// RenamedTo is where that commit moved the path, "" when it was not a
	// rename.
	RenamedTo string `json:"renamedTo,omitempty"`
}

// Report is the result of one Check.
type Report struct {
	// Head is the commit checked against; "" when HEAD has no commit yet
	// (then nothing is checked). CommittedAt is its committer time (UTC),
	// Branch the branch checked out ("" when HEAD is detached).
	Head        string    `json:"head"`
	CommittedAt time.Time `json:"committedAt,omitzero"`
	Branch      string    `json:"branch,omitempty"`
	// Refs counts the references checked.
	Refs int `json:"refs"`
	// Findings are the stale references, in topic order, then in order of
	// appearance.
	Findings []Finding `json:"findings"`
}

// Checker checks topics against one checkout.
type Checker struct {
	root string

	mu      sync.Mutex
	repo    *git.Repository
	store   *filesystem.Storage    // its pack files are closed after each Check
	topics  map[string]topicResult // by key
	facts   map[plumbing.Hash]*blobFacts
	history map[historyKey]gone
}

// topicResult is what one topic's check found at one HEAD.
type topicResult struct {
	head     plumbing.Hash
	version  string
	refs     int
	findings []Finding
}

// New returns a Checker for the checkout whose top folder (or any folder
// inside it) is root. The repository is opened on the first Check.
func New(root string) *Checker {
	return &Checker{root: root}
}

// Check checks every reference of topics against HEAD. A topic whose
// version (content) and HEAD are those of the previous Check is not checked again;
// topics absent from this call are forgotten. Errors: ErrNotRepo; an
// unreadable repository; ctx's error when it is done.
func (c *Checker) Check(ctx context.Context, topics []Topic) (Report, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rep, err := c.check(ctx, topics)
	c.closePacks()
	if err != nil && ctx.Err() == nil {
		c.repo, c.store = nil, nil // opened again next time: a git gc may have replaced the packs
	}
	return rep, err
}

// check is Check under the lock.
func (c *Checker) check(ctx context.Context, topics []Topic) (Report, error) {
	hc, err := c.head()
	if err != nil || hc.tree == nil {
		return Report{}, err
	}
	head := hc.hash
	t := &treeView{repo: c.repo, tree: hc.tree, facts: c.facts}
	rep := Report{Head: head.String(), CommittedAt: hc.when, Branch: hc.branch, Findings: []Finding{}}
	next := make(map[string]topicResult, len(topics))
	for _, tp := range topics {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		version := tp.Version
		if version == "" {
			sum := sha256.Sum256([]byte(tp.Content))
			version = string(sum[:])
		}
		res, ok := c.topics[tp.Key]
		if !ok || res.head != head || res.version != version {
			content := tp.Content
			if tp.Read != nil {
				if content, err = tp.Read(); err != nil {
					continue
				}
			}
			res = topicResult{head: head, version: version}
			rs := refs.Extract(content, refs.Options{MemoryFile: tp.MemoryFile})
			res.refs, res.findings = len(rs), t.checkAll(tp.Key, rs)
		}
		next[tp.Key] = res
		rep.Findings = append(rep.Findings, res.findings...)
		rep.Refs += res.refs
	}
	c.topics = next
	c.trimFacts()
	if err := c.explainMissing(ctx, head, rep.Findings); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// open opens the repository unless it is open.
func (c *Checker) open() error {
	if c.repo != nil {
		return nil
	}
	repo, store, err := openRepo(c.root)
	if err != nil {
		return fmt.Errorf("check references: %w", err)
	}
	c.repo, c.store = repo, store
	c.facts, c.history = map[plumbing.Hash]*blobFacts{}, map[historyKey]gone{}
	return nil
}

// headCommit is what HEAD names: the commit, its tree (nil before the
// first commit) and committer time, and the branch checked out ("" when
// HEAD is detached).
type headCommit struct {
	hash   plumbing.Hash
	tree   *object.Tree
	when   time.Time
	branch string
}

// head opens the repository when needed and returns HEAD's commit.
func (c *Checker) head() (headCommit, error) {
	if err := c.open(); err != nil {
		return headCommit{}, err
	}
	ref, err := c.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return headCommit{}, nil
	}
	if err != nil {
		return headCommit{}, fmt.Errorf("check references: read HEAD: %w", err)
	}
	commit, err := c.repo.CommitObject(ref.Hash())
	if err != nil {
		return headCommit{}, fmt.Errorf("check references: HEAD commit: %w", err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return headCommit{}, fmt.Errorf("check references: HEAD tree: %w", err)
	}
	hc := headCommit{hash: ref.Hash(), tree: tree, when: commit.Committer.When.UTC()}
	if ref.Name().IsBranch() {
		hc.branch = ref.Name().Short()
	}
	return hc, nil
}

// Head returns the commit HEAD names ("" before the first commit), reading
// only the references: what a caller compares to tell whether a Check could
// find anything new. Errors: ErrNotRepo; an unreadable repository.
func (c *Checker) Head() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.open(); err != nil {
		return "", err
	}
	ref, err := c.repo.Head()
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		return "", nil
	case err != nil:
		c.repo, c.store = nil, nil
		return "", fmt.Errorf("check references: read HEAD: %w", err)
	}
	return ref.Hash().String(), nil
}

// closePacks closes the pack files a check opened; the next check opens
// them again.
func (c *Checker) closePacks() {
	if c.store != nil {
		_ = c.store.Close() // read-only: nothing to lose
	}
}

// maxFacts bounds the remembered blob facts.
const maxFacts = 100_000

// trimFacts forgets the blob facts when they grow past maxFacts.
func (c *Checker) trimFacts() {
	if len(c.facts) > maxFacts {
		c.facts = map[plumbing.Hash]*blobFacts{}
	}
	if len(c.history) > maxFacts {
		c.history = map[historyKey]gone{}
	}
}
