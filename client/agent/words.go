package agent

import "strconv"

// Plural formats n with the singular or the plural noun phrase: "1 key",
// "2 keys", "0 keys". Every count the agent and its commands print goes
// through it.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
