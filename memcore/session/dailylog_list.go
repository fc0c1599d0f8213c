package session

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// dailyLogDate is the layout of a daily log's date (and file name stem).
const dailyLogDate = "2006-01-02"

// DailyLog is one day's log file.
type DailyLog struct {
	// Date is the day, YYYY-MM-DD; Path the file.
	Date string
	Path string
	// Content is the log's text.
	Content string
}

// ListDailyLogs lists the daily logs of an auto memory folder
// (logs/YYYY/MM/YYYY-MM-DD.md, §13) dated since (a day; the zero time for
// all) or later, oldest first. Files elsewhere below logs/, or whose name
// is not a date of their year and month folders, are not daily logs and are
// left out, as are symlinks; all reads go through an os.Root on the logs
// folder. A folder without logs has none.
func ListDailyLogs(autoMemDir string, since time.Time) ([]DailyLog, error) {
	root, err := os.OpenRoot(filepath.Join(autoMemDir, logsDirName))
	if err != nil {
		return nil, nil
	}
	defer root.Close()
	first := ""
	if !since.IsZero() {
		first = since.Format(dailyLogDate)
	}
	var out []DailyLog
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil // best effort: what reads is listed
		}
		date, ok := dailyLogName(p)
		if !ok || date < first {
			return nil
		}
		data, err := root.ReadFile(filepath.FromSlash(p))
		if err != nil {
			return nil
		}
		out = append(out, DailyLog{Date: date, Path: filepath.Join(autoMemDir, logsDirName, filepath.FromSlash(p)), Content: string(data)})
		return nil
	})
	slices.SortFunc(out, func(a, b DailyLog) int { return strings.Compare(a.Date, b.Date) })
	return out, err
}

// dailyLogName returns the date of a daily log's slash path below logs/
// (YYYY/MM/YYYY-MM-DD.md); ok is false for any other path.
func dailyLogName(p string) (string, bool) {
	parts := strings.Split(p, "/")
	if len(parts) != 3 || path.Ext(parts[2]) != ".md" {
		return "", false
	}
	date := strings.TrimSuffix(parts[2], ".md")
	t, err := time.Parse(dailyLogDate, date)
	if err != nil || t.Format("2006") != parts[0] || t.Format("01") != parts[1] {
		return "", false
	}
	return date, true
}
