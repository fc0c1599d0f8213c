package server

import "strings"

// Tags is an If-Match or If-None-Match condition in the form the Store
// compares: none (the zero value), any ("*"), or a list of checksums. A
// list may be empty: a header whose entity tags were all unusable names no
// state, so it matches nothing (and an If-Match of it never holds).
type Tags struct {
	set  bool
	any  bool
	list string // checksums joined by commas (a checksum holds none)
}

// AnyTag is the condition "*".
func AnyTag() Tags { return Tags{set: true, any: true} }

// TagList is the condition naming these checksums; none names nothing.
func TagList(sums ...string) Tags { return Tags{set: true, list: strings.Join(sums, ",")} }

// IsSet reports whether there is a condition at all.
func (t Tags) IsSet() bool { return t.set }

// IsAny reports whether the condition is "*".
func (t Tags) IsAny() bool { return t.any }

// Has reports whether the list names sum ("*" names every state but has no
// list: Has is false for it).
func (t Tags) Has(sum string) bool {
	if t.any || t.list == "" {
		return false
	}
	for rest := t.list; rest != ""; {
		var s string
		s, rest, _ = strings.Cut(rest, ",")
		if s == sum {
			return true
		}
	}
	return false
}

// String is the condition as a header would hold it, without quotes ("" for
// none): for logs and test failures.
func (t Tags) String() string {
	if t.any {
		return "*"
	}
	return t.list
}

// CheckIfMatch compares an If-Match condition with a repository's state: a
// never-written repository (version 0) matches nothing. It returns a
// *PreconditionError when it does not hold.
func CheckIfMatch(st RepoState, ifMatch Tags) error {
	switch {
	case !ifMatch.set:
		return nil
	case st.Version == 0:
		return &PreconditionError{}
	case ifMatch.any || ifMatch.Has(st.Checksum):
		return nil
	}
	return &PreconditionError{Checksum: st.Checksum}
}

// CheckIfNoneMatch compares a write's If-None-Match condition with a
// repository's state: "*" holds only while the repository has never held
// data (version 0); a list holds unless it names the current checksum. It
// returns a *PreconditionError carrying the current checksum when it does
// not hold; no condition always holds.
func CheckIfNoneMatch(st RepoState, ifNoneMatch Tags) error {
	switch {
	case !ifNoneMatch.set || st.Version == 0:
		return nil
	case ifNoneMatch.any || ifNoneMatch.Has(st.Checksum):
		return &PreconditionError{Checksum: st.Checksum}
	}
	return nil
}

// Preconditions are a write's conditions, in the form the Store compares.
type Preconditions struct {
	IfMatch     Tags
	IfNoneMatch Tags
}

// Check evaluates both conditions against st (CheckIfMatch, then
// CheckIfNoneMatch).
func (c Preconditions) Check(st RepoState) error {
	if err := CheckIfMatch(st, c.IfMatch); err != nil {
		return err
	}
	return CheckIfNoneMatch(st, c.IfNoneMatch)
}
