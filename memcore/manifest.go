package memcore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
)

// MaxManifestTopics is the most topic files Manifest returns.
const MaxManifestTopics = 200

// indexFileName is the memory index, which is not a topic file.
const indexFileName = protocol.IndexName

// maxTopicHeadBytes is how much of a topic file is read for its frontmatter.
const maxTopicHeadBytes = 16 << 10

// The memory taxonomy (§9): the known topic types.
const (
	TopicUser      = "user"
	TopicFeedback  = "feedback"
	TopicProject   = "project"
	TopicReference = "reference"
)

// Topic is one topic file of a memory folder.
type Topic struct {
	// Path is relative to the memory folder, with forward slashes.
	Path string `json:"path"`
	// Name and Description come from the frontmatter ("" when absent).
	Name        string `json:"name"`
	Description string `json:"description"`
	// Type is one of user, feedback, project, reference; "" when absent or
	// unknown.
	Type string `json:"type"`
	// ModTime is the file's modification time.
	ModTime time.Time `json:"modTime"`
}

// dailyLogRe matches the daily logs of §13, which are not topic files.
var dailyLogRe = regexp.MustCompile(`^logs/\d{4}/\d{2}/\d{4}-\d{2}-\d{2}\.md$`)

// topicFile is a topic file found on disk, before its frontmatter is read.
type topicFile struct {
	rel     string
	modTime time.Time
}

// Manifest lists the topic files of a memory folder — every *.md file but
// MEMORY.md and the daily logs (logs/YYYY/MM/YYYY-MM-DD.md), recursively,
// regular files only — newest modification first
// (ties by path), at most MaxManifestTopics, with their frontmatter, so that
// a writer can see what exists before adding a duplicate. A missing folder
// has no topics. Unreadable or malformed frontmatter leaves the fields empty.
func Manifest(dir string) ([]Topic, error) {
	files, err := findTopicFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	sort.Slice(files, func(i, j int) bool {
		if !files[i].modTime.Equal(files[j].modTime) {
			return files[i].modTime.After(files[j].modTime)
		}
		return files[i].rel < files[j].rel
	})
	if len(files) > MaxManifestTopics {
		files = files[:MaxManifestTopics]
	}
	topics := make([]Topic, 0, len(files))
	for _, f := range files {
		t := Topic{Path: f.rel, ModTime: f.modTime}
		if fm, _, err := readTopicFrontmatter(filepath.Join(dir, filepath.FromSlash(f.rel))); err == nil {
			t.Name, t.Description = fmString(fm, "name"), fmString(fm, "description")
			t.Type = topicType(fmString(fm, "type"))
		}
		topics = append(topics, t)
	}
	return topics, nil
}

// TopicFiles returns the paths, relative to dir and slash-separated, of
// every topic file of a memory folder (the files Manifest lists, without
// its limit), in path order. A missing folder has none.
func TopicFiles(dir string) ([]string, error) {
	files, err := findTopicFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	rels := make([]string, len(files))
	for i, f := range files {
		rels[i] = f.rel
	}
	sort.Strings(rels)
	return rels, nil
}

// IsTopicFile reports whether rel, a slash-separated path in a memory
// folder, names a topic file: a *.md file but MEMORY.md and the daily logs.
func IsTopicFile(rel string) bool {
	return isTopicName(path.Base(rel)) && !dailyLogRe.MatchString(rel)
}

// isTopicName reports whether a file name may be a topic file's.
func isTopicName(name string) bool {
	return strings.EqualFold(filepath.Ext(name), ".md") && name != indexFileName
}

// findTopicFiles walks dir for topic files; a missing dir has none.
func findTopicFiles(dir string) ([]topicFile, error) {
	var files []topicFile
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.Type().IsRegular() || !isTopicName(e.Name()) {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil // vanished meanwhile
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); IsTopicFile(rel) {
			files = append(files, topicFile{rel: rel, modTime: info.ModTime()})
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return files, err
}

// readTopicFrontmatter parses the frontmatter at the head of a topic file.
// fm is nil when there is none; block is the raw YAML (for line numbers).
func readTopicFrontmatter(path string) (fm map[string]any, block string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, maxTopicHeadBytes))
	if err != nil {
		return nil, "", err
	}
	content := strings.TrimPrefix(string(head), "\uFEFF")
	fm, body, err := ParseFrontmatter(content)
	block = strings.TrimSuffix(content, body)
	return fm, block, err
}

// fmString returns a frontmatter value as trimmed text; "" for a missing or
// non-scalar value.
func fmString(fm map[string]any, key string) string {
	switch v := fm[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case nil, map[string]any, []any:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// topicType returns t when it is a known type, else "".
func topicType(t string) string {
	switch t {
	case TopicUser, TopicFeedback, TopicProject, TopicReference:
		return t
	}
	return ""
}
