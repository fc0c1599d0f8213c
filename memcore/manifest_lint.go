package memcore

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// Topic lint rule identifiers.
const (
	RuleTopicNoFrontmatter      = "topic-no-frontmatter"
	RuleTopicBadFrontmatter     = "topic-bad-frontmatter"
	RuleTopicMissingName        = "topic-missing-name"
	RuleTopicMissingDescription = "topic-missing-description"
	RuleTopicUnknownType        = "topic-unknown-type"
	RuleConflictCopy            = "conflict-copy"
)

// typeLineRe finds the `type:` key of a frontmatter block.
var typeLineRe = regexp.MustCompile(`^type\s*:`)

// LintTopics checks the frontmatter of every topic file of a memory folder
// (all of them, not only Manifest's newest 200), in path order: a missing or
// malformed block, a missing name or description, a type that is not one of
// user, feedback, project, reference (a missing type is allowed). Paths in
// the problems are dir joined with the topic's path; Line is 1 except for an
// unknown type, where it is the line of the `type:` key. A conflict copy
// (protocol.IsConflictCopy) is not a topic: it is reported once, as the
// user's to resolve, and its frontmatter is not checked.
func LintTopics(dir string) ([]LintProblem, error) {
	files, err := findTopicFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("lint topics: %w", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	var problems []LintProblem
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.rel))
		if protocol.IsConflictCopy(f.rel) {
			problems = append(problems, LintProblem{Path: path, Line: 1, Rule: RuleConflictCopy,
				Message: "a conflict copy: your version of an edit that collided with a teammate's; merge what you want to keep into the original and delete this file"})
			continue
		}
		problems = append(problems, lintTopic(path)...)
	}
	return problems, nil
}

// lintTopic checks one topic file.
func lintTopic(path string) []LintProblem {
	fm, block, err := readTopicFrontmatter(path)
	switch {
	case err != nil && fm == nil && block == "":
		return []LintProblem{{Path: path, Line: 1, Rule: RuleTopicBadFrontmatter, Message: fmt.Sprintf("cannot read frontmatter: %v", err)}}
	case err != nil:
		return []LintProblem{{Path: path, Line: 1, Rule: RuleTopicBadFrontmatter, Message: fmt.Sprintf("frontmatter is not valid YAML: %v", err)}}
	case fm == nil:
		return []LintProblem{{Path: path, Line: 1, Rule: RuleTopicNoFrontmatter, Message: "topic file has no frontmatter; add name, description and type"}}
	}
	var problems []LintProblem
	if fmString(fm, "name") == "" {
		problems = append(problems, LintProblem{Path: path, Line: 1, Rule: RuleTopicMissingName, Message: "frontmatter has no name"})
	}
	if fmString(fm, "description") == "" {
		problems = append(problems, LintProblem{Path: path, Line: 1, Rule: RuleTopicMissingDescription, Message: "frontmatter has no description"})
	}
	if t := fmString(fm, "type"); t != "" && topicType(t) == "" {
		problems = append(problems, LintProblem{Path: path, Line: keyLine(block, typeLineRe), Rule: RuleTopicUnknownType, Message: fmt.Sprintf("type %q is not one of user, feedback, project, reference", t)})
	}
	return problems
}

// keyLine returns the 1-based line of the first line of block matching re;
// 1 when none does.
func keyLine(block string, re *regexp.Regexp) int {
	for i, line := range strings.Split(block, "\n") {
		if re.MatchString(line) {
			return i + 1
		}
	}
	return 1
}
