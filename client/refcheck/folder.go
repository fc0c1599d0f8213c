package refcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/teammem/teammem/memcore"
)

// MaxTopicBytes is how much of a topic file ReadFolder reads; references
// past it are not checked.
const MaxTopicBytes = 1 << 20

// ReadFolder reads the topic files of a memory folder (memcore.TopicFiles)
// as Topics keyed by their path in the folder. A link destination that
// names a file of the folder, relative to the topic's own folder, is a
// link between topics and not a reference. A file that vanished meanwhile
// is left out. Errors: the folder cannot be walked; a topic file cannot be
// read.
func ReadFolder(dir string) ([]Topic, error) {
	keys, err := memcore.TopicFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("read topics: %w", err)
	}
	topics := make([]Topic, 0, len(keys))
	for _, key := range keys {
		content, err := readHead(filepath.Join(dir, filepath.FromSlash(key)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read topics: %w", err)
		}
		base := path.Dir(key)
		topics = append(topics, Topic{Key: key, Content: content, MemoryFile: func(dest string) bool {
			fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(path.Join(base, dest))))
			return err == nil && fi.Mode().IsRegular()
		}})
	}
	return topics, nil
}

// readHead reads at most MaxTopicBytes of a file.
func readHead(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTopicBytes))
	return string(data), err
}

// CheckFolder checks the topics of the memory folder dir against the HEAD
// of the checkout around checkout, with a new Checker (one check: the
// command line's lint). Errors: those of ReadFolder and Check.
func CheckFolder(ctx context.Context, checkout, dir string) (Report, error) {
	topics, err := ReadFolder(dir)
	if err != nil {
		return Report{}, err
	}
	return New(checkout).Check(ctx, topics)
}
