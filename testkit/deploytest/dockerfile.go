package deploytest

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Instruction is one Dockerfile instruction, continuation lines joined.
type Instruction struct {
	Cmd  string // upper case, such as FROM or RUN
	Args string
}

// Stage is one FROM and the instructions under it.
type Stage struct {
	From         string // the image
	Name         string // the AS name, or ""
	Instructions []Instruction
}

// Last returns the last instruction cmd of the stage, and whether there is one.
func (s Stage) Last(cmd string) (Instruction, bool) {
	for i := len(s.Instructions) - 1; i >= 0; i-- {
		if s.Instructions[i].Cmd == cmd {
			return s.Instructions[i], true
		}
	}
	return Instruction{}, false
}

// ParseDockerfile splits a Dockerfile into its stages. It knows comments,
// backslash continuations and `FROM image AS name`; it does not expand
// arguments.
func ParseDockerfile(r io.Reader) ([]Stage, error) {
	var stages []Stage
	for _, in := range instructions(r) {
		if in.Cmd == "FROM" {
			f := strings.Fields(in.Args)
			st := Stage{From: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.Name = f[2]
			}
			stages = append(stages, st)
			continue
		}
		if len(stages) == 0 {
			if in.Cmd == "ARG" {
				continue
			}
			return nil, fmt.Errorf("parse dockerfile: %s before FROM", in.Cmd)
		}
		last := &stages[len(stages)-1]
		last.Instructions = append(last.Instructions, in)
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("parse dockerfile: no FROM")
	}
	return stages, nil
}

// instructions returns the instructions of a Dockerfile in order.
func instructions(r io.Reader) []Instruction {
	var (
		out  []Instruction
		cur  strings.Builder
		scan = bufio.NewScanner(r)
	)
	for scan.Scan() {
		line := strings.TrimSpace(scan.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cont := strings.HasSuffix(line, `\`)
		cur.WriteString(strings.TrimSuffix(line, `\`))
		cur.WriteByte(' ')
		if cont {
			continue
		}
		cmd, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		out = append(out, Instruction{Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}
