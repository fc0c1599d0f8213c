package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/memcore"
)

// logsDirName is the daily logs folder in the auto memory folder.
const logsDirName = "logs"

// DailyLogPath returns <autoMemDir>/logs/YYYY/MM/YYYY-MM-DD.md for the local
// date of env's clock.
func DailyLogPath(env memcore.Env, autoMemDir string) string {
	now := env.CurrentTime()
	return filepath.Join(autoMemDir, logsDirName, now.Format("2006"), now.Format("01"), now.Format("2006-01-02")+".md")
}

// AppendDailyLog appends entry to today's daily log (§13), creating folders
// and the file as needed, and returns the log's path. The entry gets a
// trailing newline when it has none and is written with one write on a file
// opened O_APPEND, so concurrent writers never interleave within an entry.
// An empty entry is refused.
func AppendDailyLog(env memcore.Env, autoMemDir, entry string) (string, error) {
	if strings.TrimSpace(entry) == "" {
		return "", errors.New("append daily log: empty entry")
	}
	if !strings.HasSuffix(entry, "\n") {
		entry += "\n"
	}
	path := DailyLogPath(env, autoMemDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("append daily log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return "", fmt.Errorf("append daily log: %w", err)
	}
	_, werr := f.Write([]byte(entry))
	if err := errors.Join(werr, f.Close()); err != nil {
		return "", fmt.Errorf("append daily log: %w", err)
	}
	return path, nil
}
