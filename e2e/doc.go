// Package e2e holds the end-to-end tests of teammem: they build
// teammem-server and teammem-agent with `go build`, start them as real
// processes on temporary folders and drive them as a user would, including
// killing them at awkward moments. It has no code of its own besides tests.
//
// `go test ./e2e` runs the normal set (about two minutes, the randomized
// multi-agent run's 40 s included); SOAK=1 (make soak) raises the
// kill-during-pull runs to 100 and adds the idle CPU measure, and
// SOAK_DURATION sets how long the randomized run lasts (SOAK_SEED replays
// one).
package e2e
