// Package archtest holds the test that keeps the import rules of
// CONVENTIONS.md: api and memcore import no other package of ours,
// memcore/protocol (the server's share of memcore) only the standard library
// and golang.org/x/text, client imports api only, the server's domain never
// imports the wire or a driver, and each technology lives in exactly one leaf
// package.
package archtest
