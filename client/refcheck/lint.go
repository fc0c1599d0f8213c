package refcheck

import (
	"path/filepath"

	"github.com/teammem/teammem/memcore"
)

// LintProblems turns the findings of a check of the memory folder dir
// into lint problems of rule memcore.RuleStaleReference, with the topic's
// path under dir and the line of the reference in it.
func LintProblems(dir string, rep Report) []memcore.LintProblem {
	out := make([]memcore.LintProblem, 0, len(rep.Findings))
	for _, f := range rep.Findings {
		out = append(out, memcore.LintProblem{
			Path: filepath.Join(dir, filepath.FromSlash(f.Key)), Line: f.Ref.Line,
			Rule: memcore.RuleStaleReference, Message: f.Message,
			Key: f.Key, Reference: f.Ref.Text, Reason: f.Reason,
		})
	}
	return out
}
