package agent

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/teammem/teammem/client/refcheck"
	"github.com/teammem/teammem/memcore"
)

// withheld reports whether the agent does not share key: the server
// refused it, or the last scan (or, for a file changed since or never
// scanned, a check now) found it may not be pushed.
func (e *Engine) withheld(key string) bool {
	if _, ok := e.kept.refused[key]; ok {
		return true
	}
	if s, ok := e.local.files[key]; ok && !e.local.dirty[key] {
		return s.skip != nil
	}
	data, err := memcore.SafeRead(e.cfg.Dir, key)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	return CheckEntry(key, data, e.local.maxBytes()) != nil
}

// teamTopics lists the team folder's topic files that the agent shares.
// A file the view scanned and saw unchanged since keeps its checksum as
// version, so that refcheck neither reads nor checks it again; the others
// are read now.
func (e *Engine) teamTopics() []refcheck.Topic {
	keys, err := memcore.TopicFiles(e.cfg.Dir)
	if err != nil {
		return nil
	}
	topics := make([]refcheck.Topic, 0, len(keys))
	for _, key := range keys {
		if e.withheld(key) {
			continue
		}
		t := refcheck.Topic{Key: key, Read: func() (string, error) {
			data, err := memcore.SafeRead(e.cfg.Dir, key)
			return string(data), err
		}, MemoryFile: e.teamFile(path.Dir(key))}
		if f, ok := e.local.files[key]; ok && !e.local.dirty[key] && f.checksum != "" {
			t.Version = f.checksum
		} else if data, err := t.Read(); err == nil {
			t.Content, t.Read = data, nil
		} else {
			continue
		}
		topics = append(topics, t)
	}
	return topics
}

// teamFile reports whether a link destination, relative to the folder
// base of the team folder, names a file of the team folder.
func (e *Engine) teamFile(base string) func(string) bool {
	return func(dest string) bool {
		fi, err := os.Stat(filepath.Join(e.cfg.Dir, filepath.FromSlash(path.Join(base, dest))))
		return err == nil && fi.Mode().IsRegular()
	}
}
