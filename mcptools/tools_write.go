package mcptools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/secrets"
)

// WriteInput is the input of write_memory.
type WriteInput struct {
	Repo             string `json:"repo,omitempty" jsonschema:"repository slug such as acme/api"`
	Key              string `json:"key" jsonschema:"the memory's key: a relative path ending in .md, such as testing/flaky-db.md"`
	Content          string `json:"content" jsonschema:"the whole new content (Markdown; start with a frontmatter description)"`
	IndexLine        string `json:"index_line,omitempty" jsonschema:"one line for MEMORY.md linking this key, such as '- [Flaky DB tests](testing/flaky-db.md) — why and the fix'; it replaces the line that links the key, or is appended, in the same write"`
	ExpectedChecksum string `json:"expected_checksum,omitempty" jsonschema:"write only if the memory still has this sha256: checksum (from read_memory or list_memories)"`
}

func (in WriteInput) target() (string, string) { return in.Repo, in.Key }

// WriteOutput is the output of write_memory.
type WriteOutput struct {
	Repo         string `json:"repo"`
	Key          string `json:"key"`
	Version      int64  `json:"version" jsonschema:"the repository's version after the write"`
	Checksum     string `json:"checksum" jsonschema:"the memory's new sha256: checksum"`
	Changed      bool   `json:"changed" jsonschema:"false when the memory already had this content"`
	IndexUpdated bool   `json:"index_updated" jsonschema:"MEMORY.md was changed in the same write"`
	Proposal     int64  `json:"proposal,omitempty" jsonschema:"the repository reviews writes: the id of the proposal holding this change, awaiting a reviewer"`
	Message      string `json:"message,omitempty" jsonschema:"what became of the write when it awaits review"`
}

// DeleteInput is the input of delete_memory.
type DeleteInput struct {
	Repo string `json:"repo,omitempty" jsonschema:"repository slug such as acme/api"`
	Key  string `json:"key" jsonschema:"the memory's key"`
}

func (in DeleteInput) target() (string, string) { return in.Repo, in.Key }

// DeleteOutput is the output of delete_memory.
type DeleteOutput struct {
	Repo         string `json:"repo"`
	Key          string `json:"key"`
	Version      int64  `json:"version" jsonschema:"the repository's version after the delete"`
	IndexUpdated bool   `json:"index_updated" jsonschema:"the MEMORY.md lines linking the key were removed in the same write"`
	Proposal     int64  `json:"proposal,omitempty" jsonschema:"the repository reviews deletes: the id of the proposal holding this delete, awaiting a reviewer"`
	Message      string `json:"message,omitempty" jsonschema:"what became of the delete when it awaits review"`
}

func (t *tools) addWrite(s *mcp.Server) {
	add(t, s, &mcp.Tool{Name: "write_memory", Annotations: sideEffects("Write a team memory", true, true),
		Description: "Create or replace one memory for the whole team (side effect: every teammate's assistant and agent receives it; the old content stays in memory_history). " +
			"With index_line, the line of MEMORY.md that links the key is added or replaced in the same write; with expected_checksum, the write applies only if the memory still has that checksum. " +
			"Refused, storing nothing, for an invalid key, content over the size limit or holding a credential."}, t.write)
	add(t, s, &mcp.Tool{Name: "delete_memory", Annotations: sideEffects("Delete a team memory", true, true),
		Description: "Delete one memory for the whole team (side effect: it disappears from every teammate's folder; memory_history keeps its revisions) and remove the MEMORY.md lines that link it, in one write."}, t.delete)
}

// maxAttempts bounds the retries of a conditional write that keeps losing
// races to other writers.
const maxAttempts = 5

func (t *tools) write(ctx context.Context, in WriteInput) (WriteOutput, error) {
	repo, err := t.repo(in.Repo)
	if err != nil {
		return WriteOutput{}, err
	}
	if err := checkWrite(in); err != nil {
		return WriteOutput{}, err
	}
	if in.IndexLine == "" && in.ExpectedChecksum == "" {
		res, err := t.b.Write(ctx, repo, Write{Entries: map[string]string{in.Key: in.Content}})
		if err != nil {
			return WriteOutput{}, err
		}
		return wrote(repo, in, res, false)
	}
	for range maxAttempts {
		st, err := t.b.State(ctx, repo)
		if err != nil {
			return WriteOutput{}, err
		}
		if err := checkExpected(st, in); err != nil {
			return WriteOutput{}, err
		}
		w := Write{Entries: map[string]string{in.Key: in.Content}, IfMatch: condition(st), AllOrNothing: true}
		indexed := false
		if in.IndexLine != "" {
			index, err := t.index(ctx, repo, st)
			if errors.Is(err, ErrConflict) {
				continue
			}
			if err != nil {
				return WriteOutput{}, err
			}
			if next := SetIndexLine(index, in.Key, in.IndexLine); next != index {
				w.Entries[IndexKey], indexed = next, true
			}
		}
		res, err := t.b.Write(ctx, repo, w)
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return WriteOutput{}, err
		}
		return wrote(repo, in, res, indexed)
	}
	return WriteOutput{}, Mark(fmt.Errorf("%s kept changing while %q was written (%d attempts); try again", repo, short(in.Key), maxAttempts), ErrConflict)
}

// checkWrite refuses what would be refused anyway, before anything is read:
// an invalid key or one the server's scanner would find a credential in
// (named redacted), and for a write with an index line (which must store
// both or nothing) content or a line that the scanner would find a
// credential in, or that is not text.
func checkWrite(in WriteInput) error {
	if err := checkKey(in.Key); err != nil {
		return err
	}
	if m := secrets.Scan(in.Key); len(m) > 0 {
		return refusef("%q was not written: the key contains what looks like a credential (%s, rule %s); choose a key without it", short(secrets.Redact(in.Key)), m[0].Label, m[0].RuleID)
	}
	if in.IndexLine == "" {
		return nil
	}
	if in.Key == IndexKey {
		return refusef("index_line is for a topic; to change %s itself, write it without index_line", IndexKey)
	}
	if err := checkIndexLine(in.IndexLine, in.Key); err != nil {
		return err
	}
	for _, part := range []struct{ name, text string }{{"content", in.Content}, {"index_line", in.IndexLine}} {
		if !utf8.ValidString(part.text) || strings.IndexByte(part.text, 0) >= 0 {
			return refusef("%s of %q is not valid UTF-8 text (or holds a NUL character); nothing was written", part.name, short(in.Key))
		}
		if m := secrets.Scan(part.text); len(m) > 0 {
			return refusef("%q was not written: its %s contains what looks like a credential (%s, rule %s, line %d); remove it and write again", short(in.Key), part.name, m[0].Label, m[0].RuleID, m[0].Line)
		}
	}
	return nil
}

// checkKey refuses a key that is no valid memory file name.
func checkKey(key string) error {
	var ke *protocol.KeyError
	if err := protocol.ValidateKey(key); errors.As(err, &ke) {
		return refusef("%q is not a valid memory key (%s); use a relative path ending in .md, such as topics/deploy.md", short(key), ke.Reason)
	} else if err != nil {
		return refusef("%q is not a valid memory key: %v", short(key), err)
	}
	return nil
}

// checkExpected refuses a write whose expected checksum no longer holds, or
// a new key that folds like a live one (which the write would leave out).
func checkExpected(st State, in WriteInput) error {
	cur, live := st.Entries[in.Key]
	switch {
	case in.ExpectedChecksum != "" && !live:
		return Mark(fmt.Errorf("%q does not exist in %s (expected checksum %s); nothing was written", short(in.Key), st.Repo, in.ExpectedChecksum), ErrConflict)
	case in.ExpectedChecksum != "" && cur != in.ExpectedChecksum:
		return Mark(fmt.Errorf("%q changed: its checksum is now %s, not %s; nothing was written — read_memory it again, merge, and write with the new checksum", short(in.Key), cur, in.ExpectedChecksum), ErrConflict)
	case !live:
		f := protocol.FoldKey(in.Key)
		for k := range st.Entries {
			if protocol.FoldKey(k) == f {
				return refusef("%q differs from the existing %q only in case; macOS and Windows would store both as one file, so write %q instead", short(in.Key), k, k)
			}
		}
	}
	return nil
}

// condition is the IfMatch of a write based on st.
func condition(st State) string {
	if st.Version == 0 {
		return CreateOnly
	}
	return st.Checksum
}

// index returns the index's content as of st ("" when there is none); an
// index changed since st is ErrConflict.
func (t *tools) index(ctx context.Context, repo string, st State) (string, error) {
	sum, ok := st.Entries[IndexKey]
	if !ok {
		return "", nil
	}
	rev, err := t.b.Revision(ctx, repo, IndexKey, 0)
	rev, err = live(rev, err, repo, IndexKey)
	if errors.Is(err, ErrNotFound) {
		return "", Mark(err, ErrConflict)
	}
	if err != nil {
		return "", err
	}
	if rev.Checksum != sum {
		return "", Mark(errors.New("the index changed"), ErrConflict)
	}
	return rev.Content, nil
}

// wrote turns a write's result into write_memory's answer: the memory left
// out of the write is a refusal saying why.
func wrote(repo string, in WriteInput, res WriteResult, indexed bool) (WriteOutput, error) {
	if i := slices.IndexFunc(res.Skipped, func(s Skipped) bool { return s.Key == in.Key || s.Key == IndexKey }); i >= 0 {
		after := "; nothing was written"
		if indexed && slices.Contains(res.Changed, IndexKey) { // a server that cannot write all or nothing
			after = "; MEMORY.md was written without it: write the memory again, or delete its index line"
		} else if slices.Contains(res.Changed, in.Key) {
			after = "; the memory was written without its index line"
		}
		return WriteOutput{}, skippedError(res.Skipped[i], after)
	}
	return WriteOutput{Repo: repo, Key: in.Key, Version: res.Version, Checksum: protocol.EntryChecksum([]byte(in.Content)),
		Changed: slices.Contains(res.Changed, in.Key), IndexUpdated: indexed && slices.Contains(res.Changed, IndexKey),
		Proposal: res.Proposal, Message: proposed(res.Proposal)}, nil
}

// skippedError is the refusal of an entry the backend left out, with what
// became of the rest of the write (after).
func skippedError(s Skipped, after string) error {
	msg := fmt.Sprintf("%q was not written (%s): %s", short(s.Key), s.Reason, s.Message)
	if s.RuleID != "" {
		msg += fmt.Sprintf(" [rule %s]", s.RuleID)
	}
	return refusef("%s%s", msg, after)
}

func (t *tools) delete(ctx context.Context, in DeleteInput) (DeleteOutput, error) {
	repo, err := t.repo(in.Repo)
	if err != nil {
		return DeleteOutput{}, err
	}
	if err := checkKey(in.Key); err != nil {
		return DeleteOutput{}, err
	}
	for range maxAttempts {
		st, err := t.b.State(ctx, repo)
		if err != nil {
			return DeleteOutput{}, err
		}
		if _, ok := st.Entries[in.Key]; !ok {
			return DeleteOutput{}, Mark(fmt.Errorf("no memory %q in %s", short(in.Key), repo), ErrNotFound)
		}
		w := Write{Deletes: []string{in.Key}, IfMatch: condition(st), AllOrNothing: true}
		indexed := false
		if in.Key != IndexKey {
			index, err := t.index(ctx, repo, st)
			if errors.Is(err, ErrConflict) {
				continue
			}
			if err != nil {
				return DeleteOutput{}, err
			}
			if next := RemoveIndexLines(index, in.Key); next != index {
				w.Entries, indexed = map[string]string{IndexKey: next}, true
			}
		}
		res, err := t.b.Write(ctx, repo, w)
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return DeleteOutput{}, err
		}
		if i := slices.IndexFunc(res.Skipped, func(s Skipped) bool { return s.Key == IndexKey }); i >= 0 {
			after := "; nothing was deleted"
			if slices.Contains(res.Deleted, in.Key) { // a server that cannot write all or nothing
				after = fmt.Sprintf("; %q was deleted, and MEMORY.md still links it", short(in.Key))
			}
			return DeleteOutput{}, skippedError(res.Skipped[i], after)
		}
		return DeleteOutput{Repo: repo, Key: in.Key, Version: res.Version, IndexUpdated: indexed && slices.Contains(res.Changed, IndexKey),
			Proposal: res.Proposal, Message: proposed(res.Proposal)}, nil
	}
	return DeleteOutput{}, Mark(fmt.Errorf("%s kept changing while %q was deleted (%d attempts); try again", repo, short(in.Key), maxAttempts), ErrConflict)
}

// proposed says what became of a write a review policy held: "" when
// nothing was.
func proposed(id int64) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprintf("proposed as #%d, awaiting review: a reviewer of the repository approves it before the team sees it", id)
}

// short bounds a key quoted in a message.
func short(key string) string {
	const maxKey = 200
	if len(key) <= maxKey {
		return key
	}
	k := key[:maxKey]
	for !utf8.ValidString(k) {
		k = k[:len(k)-1]
	}
	return k + "…"
}
