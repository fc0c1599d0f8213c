package memcore

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// VerifiedKey is the frontmatter key that records the day someone last
// confirmed a topic still holds (`verified: 2026-12-01`); `teammem-agent
// memory confirm` writes it, and the edit syncs like any other.
const VerifiedKey = "verified"

// verifiedLayout is the date format of VerifiedKey.
const verifiedLayout = "2006-01-02"

// verifiedLineRe finds the VerifiedKey line of a frontmatter block.
var verifiedLineRe = regexp.MustCompile(`(?m)^verified[ \t]*:.*$`)

// TopicVerified returns the day of a parsed frontmatter's VerifiedKey; ok
// is false when there is none or it is not a YYYY-MM-DD date.
func TopicVerified(fm map[string]any) (day time.Time, ok bool) {
	switch v := fm[VerifiedKey].(type) {
	case time.Time: // YAML reads an unquoted date as a timestamp
		return time.Date(v.Year(), v.Month(), v.Day(), 0, 0, 0, 0, time.UTC), true
	case string:
		d, err := time.Parse(verifiedLayout, strings.TrimSpace(v))
		return d, err == nil
	}
	return time.Time{}, false
}

// SetVerified returns content with its frontmatter's VerifiedKey set to
// day: the existing line replaced, else a line added at the end of the
// block, else a new block put first. The rest of the file is unchanged.
func SetVerified(content string, day time.Time) string {
	line := VerifiedKey + ": " + day.Format(verifiedLayout)
	bom := ""
	if strings.HasPrefix(content, utf8BOM) {
		bom, content = utf8BOM, strings.TrimPrefix(content, utf8BOM)
	}
	block, body, ok := splitFrontmatter(content)
	if !ok {
		return bom + "---\n" + line + "\n---\n" + content
	}
	head := content[:strings.IndexByte(content, '\n')+1] // the opening "---" line
	closing := content[len(head)+len(block) : len(content)-len(body)]
	if verifiedLineRe.MatchString(block) {
		block = verifiedLineRe.ReplaceAllLiteralString(block, line)
	} else {
		if block != "" && !strings.HasSuffix(block, "\n") {
			block += "\n"
		}
		block += line + "\n"
	}
	return bom + head + block + closing + body
}

// StaleTopics reports, as RuleStaleAge problems, the topic files of dir
// that nobody changed (modification time) or confirmed (VerifiedKey) for
// longer than after, as of now, in path order. after ≤ 0 reports none.
func StaleTopics(dir string, after time.Duration, now time.Time) ([]LintProblem, error) {
	if after <= 0 {
		return nil, nil
	}
	files, err := findTopicFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("check topic age: %w", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	var out []LintProblem
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.rel))
		last := f.modTime
		if fm, _, err := readTopicFrontmatter(path); err == nil {
			if d, ok := TopicVerified(fm); ok && d.After(last) {
				last = d
			}
		}
		if age := now.Sub(last); age > after {
			out = append(out, LintProblem{Path: path, Line: 1, Rule: RuleStaleAge, Key: f.rel, Reason: RuleStaleAge,
				Message: fmt.Sprintf("not changed or confirmed for %d days; check it and run teammem-agent memory confirm %s", int(age.Hours()/24), f.rel)})
		}
	}
	return out, nil
}

// ConfirmTopic sets the VerifiedKey of the topic file key in dir to day,
// reading and writing through SafeRead and SafeWrite. Errors: those of
// SafeRead (a missing file, an invalid key, a path leaving dir) and
// SafeWrite.
func ConfirmTopic(dir, key string, day time.Time) error {
	data, err := SafeRead(dir, key)
	if err != nil {
		return fmt.Errorf("confirm %s: %w", key, err)
	}
	if err := SafeWrite(dir, key, []byte(SetVerified(string(data), day))); err != nil {
		return fmt.Errorf("confirm %s: %w", key, err)
	}
	return nil
}
